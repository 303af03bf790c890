/**
 * `init` writes a programme's repository: the files, the README section (appended to a README
 * there already, replaced by --force), and nothing at all when one of its files is there already
 * without --force. Cheap checks of the text; test/slow/init.test.ts runs what it writes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir, snapshot } from './helpers/fixtures.ts';
import { initRepository, WORKFLOW_PATH } from '../init/write-repository.ts';
import { README_BEGIN, WORKER_COMPATIBILITY_DATE, WORKER_ENTRY } from '../init/files.ts';
import { nightlyWorkflow, SECRETS, shardedWorkflow } from '../init/workflows.ts';
import { ROOT } from './helpers/process.ts';
import { UserError } from '../core/errors.ts';

const FILES = [WORKFLOW_PATH, 'worker.js', 'wrangler.toml', '.gitignore', 'README.md'];

test('one runner: the workflow, the Worker, wrangler.toml, .gitignore and a new README naming every secret', () => {
  const dir = path.join(tempDir(), 'my-programme');
  const result = initRepository({ dir, sharded: null, force: false });
  assert.equal([result.written, result.readme, result.missingPackage], [FILES, 'created', true]);
  assert.is(fs.readFileSync(path.join(dir, WORKFLOW_PATH), 'utf8'), nightlyWorkflow());
  assert.is(fs.readFileSync(path.join(dir, 'worker.js'), 'utf8'), WORKER_ENTRY);
  assert.match(WORKER_ENTRY, /^export \{ default \} from 'wallet-snapshot\/worker';$/m);
  const toml = fs.readFileSync(path.join(dir, 'wrangler.toml'), 'utf8');
  assert.match(toml, /^name = "my-programme-snapshot"$/m);
  assert.match(toml, /# BUCKET \(a placeholder\)[^\n]*\nbucket_name = "wallet-snapshot"$/m);
  assert.match(toml, /# PREFIX \(a placeholder\)[^\n]*\n[^\n]*\nTREE_PREFIX = "prod"$/m);
  const readme = fs.readFileSync(path.join(dir, 'README.md'), 'utf8');
  assert.ok(readme.startsWith(`# my-programme\n\n${README_BEGIN}\n## Nightly snapshot\n`), readme);
  for (const secret of Object.keys(SECRETS)) assert.match(readme, `| \`${secret}\` |`);
  assert.match(readme, 'go into `exports/`');
  assert.equal(
    fs
      .readFileSync(path.join(dir, '.gitignore'), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('/') || line.endsWith('/')),
    ['node_modules/', '/public', '/.public.builds/', '/night/', '/summaries/', '/.wrangler/'],
  );
});

test('the Worker is written for the date serve --runtime workerd runs it with', () => {
  // Read as text: importing preview/workerd.ts loads Miniflare, seconds of CPU for one constant.
  const source = fs.readFileSync(path.join(ROOT, 'preview', 'workerd.ts'), 'utf8');
  assert.is(WORKER_COMPATIBILITY_DATE, /^export const COMPATIBILITY_DATE = '([\d-]+)';$/m.exec(source)?.[1]);
});

test('--sharded 3 writes the sharded workflow; the package name names the Worker; an existing README gets the section appended', () => {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "name": "@acme/points-data", "private": true }\n');
  fs.writeFileSync(path.join(dir, 'README.md'), '# Points data\n\nOur exports.\n');
  const result = initRepository({ dir, sharded: 3, force: false });
  assert.equal([result.readme, result.missingPackage], ['appended', false]);
  assert.is(fs.readFileSync(path.join(dir, WORKFLOW_PATH), 'utf8'), shardedWorkflow(3));
  assert.match(fs.readFileSync(path.join(dir, 'wrangler.toml'), 'utf8'), /^name = "points-data-snapshot"$/m);
  assert.ok(fs.readFileSync(path.join(dir, 'README.md'), 'utf8').startsWith(`# Points data\n\nOur exports.\n\n${README_BEGIN}\n`));
});

test('run twice: the second is refused, naming the files, and nothing changes; --force rewrites them and replaces the section', () => {
  const dir = tempDir();
  initRepository({ dir, sharded: null, force: false });
  const before = snapshot(dir);
  let refusal: unknown;
  try {
    initRepository({ dir, sharded: 4, force: false });
  } catch (error) {
    refusal = error;
  }
  assert.instance(refusal, UserError);
  assert.is((refusal as UserError).exitCode, 1);
  assert.is(
    (refusal as UserError).message,
    `init: ${dir} has ${WORKFLOW_PATH}, worker.js, wrangler.toml, .gitignore, README.md (its "Nightly snapshot" section) already; nothing was written (give --force to overwrite them)`,
  );
  assert.equal(snapshot(dir), before);
  // One file of the set is enough to refuse them all.
  fs.rmSync(path.join(dir, WORKFLOW_PATH));
  fs.rmSync(path.join(dir, 'wrangler.toml'));
  fs.rmSync(path.join(dir, '.gitignore'));
  fs.writeFileSync(path.join(dir, 'README.md'), '# Mine\n');
  const kept = snapshot(dir);
  assert.throws(
    () => initRepository({ dir, sharded: null, force: false }),
    (error: Error) => error.message === `init: ${dir} has worker.js already; nothing was written (give --force to overwrite it)`,
  );
  assert.equal(snapshot(dir), kept);
  fs.appendFileSync(
    path.join(dir, 'README.md'),
    `\n${fs.readFileSync(path.join(tempDirWithInit(), 'README.md'), 'utf8').split('\n').slice(2).join('\n')}\nAfter.\n`,
  );
  const forced = initRepository({ dir, sharded: 2, force: true });
  assert.is(forced.readme, 'replaced');
  const readme = fs.readFileSync(path.join(dir, 'README.md'), 'utf8');
  assert.is(readme.split(README_BEGIN).length, 2, 'one section');
  assert.ok(readme.startsWith('# Mine\n') && readme.endsWith('\nAfter.\n'), readme);
  assert.match(readme, 'a `prepare` job reads the exports once and writes 2 shard folders');
  assert.is(fs.readFileSync(path.join(dir, WORKFLOW_PATH), 'utf8'), shardedWorkflow(2));
});

function tempDirWithInit(): string {
  const dir = tempDir();
  initRepository({ dir, sharded: null, force: false });
  return dir;
}

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
