/**
 * `init` writes a programme's repository and never drops what is the programme's: the files wholly
 * init's (the workflow, the Worker, wrangler.toml) are refused, all of them, when one is there
 * without --force; the .gitignore and the README get init's block (appended, kept by a second
 * init, rewritten in place by --force), every line outside it untouched. `--bucket` and
 * `--prefix` fill the store's names in every file; without them the placeholders are written.
 * Cheap checks of the text; test/slow/init.test.ts runs what it writes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir, snapshot, thrown } from './helpers/fixtures.ts';
import { initRepository, WORKFLOW_PATH } from '../init/write-repository.ts';
import {
  GITIGNORE_BEGIN,
  GITIGNORE_BLOCK,
  GITIGNORE_END,
  README_BEGIN,
  WORKER_COMPATIBILITY_DATE,
  WORKER_ENTRY,
  testedWrangler,
} from '../init/files.ts';
import { formatInitSummary } from '../init/summary.ts';
import { nightlyWorkflow, PLACEHOLDERS, SECRETS, shardedWorkflow } from '../init/workflows.ts';
import { ROOT } from './helpers/process.ts';
import { UserError } from '../core/errors.ts';

const FILES = [WORKFLOW_PATH, 'worker.js', 'wrangler.toml', '.gitignore', 'README.md'];
const read = (dir: string, file: string) => fs.readFileSync(path.join(dir, file), 'utf8');
const WRANGLER = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> })
  .devDependencies.wrangler!;

test("one runner: the workflow, the Worker, wrangler.toml, a .gitignore of init's block and a new README naming every secret", () => {
  const dir = path.join(tempDir(), 'my-programme');
  const result = initRepository({ dir, sharded: null, force: false });
  assert.equal(
    [result.written, result.gitignore, result.readme, result.names, result.missingPackage],
    [FILES, 'created', 'created', null, true],
  );
  assert.is(read(dir, WORKFLOW_PATH), nightlyWorkflow());
  assert.is(read(dir, 'worker.js'), WORKER_ENTRY);
  assert.match(WORKER_ENTRY, /^export \{ default \} from 'wallet-snapshot\/worker';$/m);
  const toml = read(dir, 'wrangler.toml');
  assert.match(toml, /^name = "my-programme-snapshot"$/m);
  assert.match(toml, /# BUCKET \(a placeholder: put yours\)[^\n]*\nbucket_name = "replace-with-your-bucket"$/m);
  assert.match(toml, /# PREFIX \(a placeholder: put yours\)[^\n]*\n[^\n]*\nTREE_PREFIX = "replace-with-your-prefix"$/m);
  const readme = read(dir, 'README.md');
  assert.ok(readme.startsWith(`# my-programme\n\n${README_BEGIN}\n## Nightly snapshot\n`), readme);
  for (const secret of Object.keys(SECRETS)) assert.match(readme, `| \`${secret}\` |`);
  assert.match(readme, 'go into `exports/`');
  assert.match(readme, 'A night whose workflow still holds\n   a placeholder fails at its first step, naming the file.');
  assert.is(read(dir, '.gitignore'), GITIGNORE_BLOCK);
  assert.equal(
    GITIGNORE_BLOCK.split('\n').filter((line) => line.startsWith('/') || line.endsWith('/')),
    ['node_modules/', '/public', '/.public.builds/', '/night/', '/summaries/', '/.wrangler/'],
  );
});

test('wrangler named and installed: the exact version the package is tested with, in the README, wrangler.toml and the next steps; deploy is one command', () => {
  assert.match(WRANGLER, /^\d+\.\d+\.\d+$/);
  assert.is(testedWrangler(), WRANGLER);
  // The repository's own docs name the same version, for a programme reading them before it runs init.
  for (const doc of ['README.md', 'docs/cli.md'])
    assert.match(read(ROOT, doc), `npm install --save-dev --save-exact wrangler@${WRANGLER}`, doc);
  const dir = tempDir();
  const result = initRepository({ dir, sharded: null, force: false });
  const install = `npm install --save-dev --save-exact wrangler@${WRANGLER}`;
  assert.match(
    read(dir, 'README.md'),
    `bucket and prefix). Install the wrangler wallet-snapshot is tested with, once:\n\n    ${install}\n\nthen deploy with one command, \`npx wrangler deploy\``,
  );
  assert.match(read(dir, 'wrangler.toml'), `# \`${install}\`; after`);
  assert.is(
    formatInitSummary(result),
    `wrote ${dir}:\n` +
      `  ${WORKFLOW_PATH}\n  worker.js\n  wrangler.toml\n` +
      "  .gitignore (init's block in a new file)\n" +
      '  README.md (the "Nightly snapshot" section in a new file)\n' +
      'next:\n' +
      `  - npm install --save-dev wallet-snapshot in ${dir} (the workflow runs npm ci)\n` +
      "  - set the repository's secrets SNAPSHOT_ENDPOINT, SNAPSHOT_ACCESS_KEY_ID, SNAPSHOT_SECRET_ACCESS_KEY\n" +
      `  - put your bucket and prefix in ${WORKFLOW_PATH} and wrangler.toml in place of replace-with-your-bucket and replace-with-your-prefix ` +
      '(or run init --force --bucket NAME --prefix PREFIX): a night refuses them at its first step\n' +
      `  - the Worker: ${install}, then deploy it with npx wrangler deploy\n` +
      '  - commit and push: the workflow runs every night at 05:30 UTC, or by hand\n',
  );
});

test('--bucket and --prefix fill the names in every file: the workflow, wrangler.toml, the README; no placeholder left but in the check that refuses it', () => {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "name": "points-data" }\n');
  const result = initRepository({ dir, sharded: 3, force: false, bucket: 'points-snapshots', prefix: '/nightly/prod/' });
  assert.equal(result.names, { bucket: 'points-snapshots', prefix: 'nightly/prod' });
  const names = { bucket: 'points-snapshots', prefix: 'nightly/prod' };
  assert.is(read(dir, WORKFLOW_PATH), shardedWorkflow(3, { schedule: true, names }));
  assert.match(read(dir, WORKFLOW_PATH), /^ {2}SNAPSHOT_BUCKET: points-snapshots\n {2}SNAPSHOT_PREFIX: nightly\/prod$/m);
  const toml = read(dir, 'wrangler.toml');
  assert.match(toml, /^bucket_name = "points-snapshots"$/m);
  assert.match(toml, /^TREE_PREFIX = "nightly\/prod"$/m);
  assert.match(read(dir, 'README.md'), 'the nights go to\n   `s3://points-snapshots/nightly/prod`');
  for (const file of ['wrangler.toml', 'README.md', 'worker.js', '.gitignore']) {
    assert.not.match(read(dir, file), PLACEHOLDERS.bucket, file);
    assert.not.match(read(dir, file), PLACEHOLDERS.prefix, file);
  }
  assert.match(
    formatInitSummary(result),
    `  - the nights go to s3://points-snapshots/nightly/prod (${WORKFLOW_PATH} and wrangler.toml say so)\n`,
  );
});

test('--bucket without --prefix, a name S3 refuses, a prefix init cannot write or a placeholder: refused, nothing written', () => {
  const cases: [Partial<{ bucket: string; prefix: string }>, string][] = [
    [{ bucket: 'points' }, 'init: --bucket was given without --prefix: give both'],
    [{ prefix: 'prod' }, 'init: --prefix was given without --bucket: give both'],
    [
      { bucket: 'Points_Data', prefix: 'prod' },
      'init: --bucket "Points_Data" is not a bucket\'s name: expected 3 to 63 lower-case letters',
    ],
    [{ bucket: 'ab', prefix: 'prod' }, 'init: --bucket "ab" is not a bucket\'s name'],
    [{ bucket: PLACEHOLDERS.bucket, prefix: 'prod' }, `init: --bucket "${PLACEHOLDERS.bucket}" is not a bucket's name`],
    [{ bucket: 'points', prefix: '' }, 'init: --prefix "" is not a prefix init writes'],
    [{ bucket: 'points', prefix: 'a/../b' }, 'init: --prefix "a/../b" is not a prefix init writes'],
    [{ bucket: 'points', prefix: 'prod now' }, 'init: --prefix "prod now" is not a prefix init writes'],
    [{ bucket: 'points', prefix: PLACEHOLDERS.prefix }, `init: --prefix "${PLACEHOLDERS.prefix}" is not a prefix init writes`],
  ];
  for (const [names, message] of cases) {
    const dir = tempDir();
    assert.throws(
      () => initRepository({ dir, sharded: null, force: false, ...names }),
      (error: Error) => error instanceof UserError && error.message.startsWith(message),
      JSON.stringify(names),
    );
    assert.equal(fs.readdirSync(dir), [], JSON.stringify(names));
  }
});

test('the Worker is written for the date serve --runtime workerd runs it with', () => {
  // Read as text: importing preview/workerd.ts loads Miniflare, seconds of CPU for one constant.
  const source = fs.readFileSync(path.join(ROOT, 'preview', 'workerd.ts'), 'utf8');
  assert.is(WORKER_COMPATIBILITY_DATE, /^export const COMPATIBILITY_DATE = '([\d-]+)';$/m.exec(source)?.[1]);
});

test("a .gitignore of the programme's (.env, secrets/): init's block appended, every line of its own kept; a second init keeps the block, --force rewrites it in place", () => {
  const dir = tempDir();
  const own = '# our keys\n.env\nsecrets/\n*.pem';
  fs.writeFileSync(path.join(dir, '.gitignore'), own);
  fs.writeFileSync(path.join(dir, 'README.md'), '# Points data\n\nOur exports.\n');
  const first = initRepository({ dir, sharded: null, force: false });
  assert.equal([first.gitignore, first.readme], ['appended', 'appended']);
  assert.is(read(dir, '.gitignore'), `${own}\n\n${GITIGNORE_BLOCK}`);
  assert.ok(read(dir, 'README.md').startsWith(`# Points data\n\nOur exports.\n\n${README_BEGIN}\n`));
  // The programme adds lines after init's block, and edits inside it.
  fs.appendFileSync(path.join(dir, '.gitignore'), 'coverage/\n');
  fs.writeFileSync(path.join(dir, '.gitignore'), read(dir, '.gitignore').replace('/night/\n', '/night/\n/mine-inside/\n'));
  const edited = read(dir, '.gitignore');
  // Without the files wholly init's, a second init writes them again and keeps both blocks as they are.
  for (const file of [WORKFLOW_PATH, 'worker.js', 'wrangler.toml']) fs.rmSync(path.join(dir, file));
  const readmeBefore = read(dir, 'README.md');
  const second = initRepository({ dir, sharded: null, force: false });
  assert.equal([second.gitignore, second.readme], ['kept', 'kept']);
  assert.is(read(dir, '.gitignore'), edited);
  assert.is(read(dir, 'README.md'), readmeBefore);
  // --force: init's block back to init's text, in its place; the programme's lines before and after it kept.
  const forced = initRepository({ dir, sharded: 2, force: true });
  assert.equal([forced.gitignore, forced.readme], ['replaced', 'replaced']);
  assert.is(read(dir, '.gitignore'), `${own}\n\n${GITIGNORE_BLOCK}coverage/\n`);
  const readme = read(dir, 'README.md');
  assert.is(readme.split(README_BEGIN).length, 2, 'one section');
  assert.match(readme, 'a `prepare` job reads the exports once and writes 2 shard folders');
  assert.ok(readme.startsWith('# Points data\n\nOur exports.\n\n'));
  assert.is(read(dir, WORKFLOW_PATH), shardedWorkflow(2));
  assert.match(formatInitSummary(forced), "  .gitignore (init's block rewritten in place, your lines kept)\n");
});

test("init's block damaged (an end line lost, or two begins): refused, naming the file, nothing written", () => {
  for (const [file, text] of [
    ['.gitignore', `.env\n${GITIGNORE_BEGIN}\nnode_modules/\n`],
    ['.gitignore', `${GITIGNORE_BLOCK}${GITIGNORE_BLOCK}`],
    ['.gitignore', `${GITIGNORE_END}\n.env\n${GITIGNORE_BEGIN}\n`],
    ['README.md', `# Mine\n\n${README_BEGIN}\n## Nightly snapshot\n`],
  ] as const) {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, file), text);
    const before = snapshot(dir);
    assert.throws(
      () => initRepository({ dir, sharded: null, force: true }),
      (error: Error) =>
        error instanceof UserError && error.message.startsWith(`init: ${file} has `) && error.message.endsWith('Nothing was written'),
      text,
    );
    assert.equal(snapshot(dir), before);
  }
});

test('--sharded 3 writes the sharded workflow; the package name names the Worker', () => {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "name": "@acme/points-data", "private": true }\n');
  const result = initRepository({ dir, sharded: 3, force: false });
  assert.equal([result.readme, result.missingPackage], ['created', false]);
  assert.is(read(dir, WORKFLOW_PATH), shardedWorkflow(3));
  assert.match(read(dir, 'wrangler.toml'), /^name = "points-data-snapshot"$/m);
});

test("run twice: the second is refused, naming the files wholly init's, and nothing changes; --force rewrites them", async () => {
  const dir = tempDir();
  initRepository({ dir, sharded: null, force: false });
  const before = snapshot(dir);
  const refusal = await thrown(async () => initRepository({ dir, sharded: 4, force: false }));
  assert.instance(refusal, UserError);
  assert.is((refusal as UserError).exitCode, 1);
  assert.is(
    (refusal as UserError).message,
    `init: ${dir} has ${WORKFLOW_PATH}, worker.js, wrangler.toml already; nothing was written (give --force to overwrite them)`,
  );
  assert.equal(snapshot(dir), before);
  // One file of the set is enough to refuse them all.
  fs.rmSync(path.join(dir, WORKFLOW_PATH));
  fs.rmSync(path.join(dir, 'wrangler.toml'));
  const kept = snapshot(dir);
  assert.throws(
    () => initRepository({ dir, sharded: null, force: false }),
    (error: Error) => error.message === `init: ${dir} has worker.js already; nothing was written (give --force to overwrite it)`,
  );
  assert.equal(snapshot(dir), kept);
  initRepository({ dir, sharded: 2, force: true, bucket: 'points', prefix: 'prod' });
  assert.is(read(dir, WORKFLOW_PATH), shardedWorkflow(2, { schedule: true, names: { bucket: 'points', prefix: 'prod' } }));
});

test('--sharded out of range is refused before anything is written', () => {
  for (const sharded of [1, 257, 2.5]) {
    const dir = tempDir();
    assert.throws(
      () => initRepository({ dir, sharded, force: false }),
      (error: Error) =>
        error instanceof UserError && error.message.startsWith(`--sharded ${sharded}: expected a whole number of shards from 2 to 256`),
    );
    assert.equal(fs.readdirSync(dir), []);
  }
});

test.run();
