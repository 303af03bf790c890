/**
 * `--summary-json FILE` on build, prepare, verify and publish: each document, read back, conforms
 * to its schema (the package's `wallet-snapshot/summaries`) and says what the command did, on the
 * sample data: the counts, the version and whether it went live, was staged or was refused.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { PINNED_NOW, publishedPaths, tempDir, treePaths, writeInputs } from '../helpers/fixtures.ts';
import { ROOT, runCli } from '../helpers/process.ts';
import { BUCKET, S3_CREDENTIALS, startS3Server } from '../helpers/s3-server.ts';
import { night } from '../helpers/nights.ts';
import { SEASONS_FILE } from '../../tree/layout.ts';
import {
  BuildSummaryJsonSchema,
  PrepareSummaryJsonSchema,
  PublishSummaryJsonSchema,
  VerifySummaryJsonSchema,
} from '../../schemas/summaries.ts';

const SAMPLE = path.join(ROOT, 'data', 'sample');
const root = tempDir('ws-summary-json-');
const s3 = await startS3Server();
const to = `s3://${BUCKET}/prod`;
const SAMPLE_SEASONS = [
  { season: 1, asOf: '2025-11-05', participants: 40 },
  { season: 2, asOf: '2025-11-20', participants: 40 },
  { season: 3, asOf: null, participants: 0 },
];
const SAMPLE_WARNING =
  '150 daily positions had no price on or before their day (usdPerToken 0): chain 1 uty from 2025-03-08 to 2025-07-31 (146); chain 1 venueAYt from 2025-08-07 to 2025-08-10 (4)';
const REFUSED_RULES = ['backwards'];

function read<T extends z.ZodType>(schema: T, file: string): z.infer<T> {
  return schema.parse(JSON.parse(fs.readFileSync(file, 'utf8')));
}

/** Only the summary itself in the folder: the temporary file it was written through is gone. */
function onlyFile(file: string): void {
  assert.equal(fs.readdirSync(path.dirname(file)), [path.basename(file)]);
}

test('build and verify: the counts of the sample; verify of a broken tree: ok false, its failures', async () => {
  const out = path.join(root, 'public');
  const file = path.join(root, 'build-json', 'summary.json');
  const built = await runCli([
    'build',
    '--input',
    SAMPLE,
    '--out',
    out,
    '--now',
    PINNED_NOW,
    '--progress',
    'quiet',
    '--summary-json',
    file,
  ]);
  assert.is(built.code, 0, built.stderr);
  onlyFile(file);
  const summary = read(BuildSummaryJsonSchema, file);
  assert.equal(
    [
      summary.command,
      summary.out,
      summary.wallets,
      summary.files,
      summary.now,
      summary.lastClosedDay,
      summary.dailyAsOf,
      summary.previousBuild,
      summary.warnings,
    ],
    ['build', out, 40, treePaths(out).length, PINNED_NOW, '2025-11-20', '2025-11-20', null, [SAMPLE_WARNING]],
  );
  assert.equal(summary.seasons, SAMPLE_SEASONS);
  assert.match(built.stdout, `built ${out}: 40 wallets, ${summary.files} files, `);

  const verifyFile = path.join(root, 'verify.json');
  const verified = await runCli(['verify', '--dir', out, '--summary-json', verifyFile]);
  assert.is(verified.code, 0, verified.stderr);
  const verdict = read(VerifySummaryJsonSchema, verifyFile);
  assert.match(verified.stdout, `; ${verdict.files} documents conform to their schemas and invariants`);
  assert.equal(
    { ...verdict, seconds: 0 },
    {
      command: 'verify',
      ok: true,
      target: out,
      shard: null,
      coverage: 'the whole tree',
      files: verdict.files,
      wallets: 41,
      failures: [],
      truncated: false,
      seconds: 0,
      store: null,
    },
  );

  const broken = path.join(root, 'broken');
  fs.cpSync(fs.realpathSync(out), broken, { recursive: true });
  fs.appendFileSync(path.join(broken, SEASONS_FILE), ' ');
  const failed = await runCli(['verify', '--dir', broken, '--summary-json', verifyFile]);
  assert.is(failed.code, 1, failed.stderr);
  const failure = read(VerifySummaryJsonSchema, verifyFile);
  assert.equal([failure.ok, failure.failures.length, failure.truncated], [false, 1, false]);
  assert.match(failure.failures[0]!, SEASONS_FILE);
  assert.match(failed.stderr, failure.failures[0]!);
});

test('prepare: a full night, its shard folders; each shard staged (K of N), then committed live with its counts', async () => {
  const nightDir = path.join(root, 'night');
  const file = path.join(root, 'prepare.json');
  const prepared = await runCli([
    'prepare',
    '--input',
    SAMPLE,
    '--out',
    nightDir,
    '--shards',
    '2',
    '--now',
    PINNED_NOW,
    '--progress',
    'quiet',
    '--summary-json',
    file,
  ]);
  assert.is(prepared.code, 0, prepared.stderr);
  const summary = read(PrepareSummaryJsonSchema, file);
  assert.equal(
    [summary.command, summary.out, summary.shards, summary.folders, summary.night, summary.now, summary.lastClosedDay, summary.dailyAsOf],
    [
      'prepare',
      nightDir,
      2,
      [1, 2].map((k) => path.join(nightDir, `shard-${k}-of-2`)),
      { kind: 'full', why: 'no --since given' },
      PINNED_NOW,
      '2025-11-20',
      '2025-11-20',
    ],
  );
  assert.equal(summary.seasons, SAMPLE_SEASONS);
  const versions = new Set<string>();
  for (const k of [1, 2]) {
    const out = path.join(root, `shard-${k}`);
    const built = await runCli(['build', '--prepared', summary.folders[k - 1]!, '--out', out, '--progress', 'quiet']);
    assert.is(built.code, 0, built.stderr);
    const stageFile = path.join(root, `stage-${k}.json`);
    const staged = await runCli(
      ['publish', '--dir', out, '--to', to, '--endpoint', s3.endpoint, '--progress', 'quiet', '--summary-json', stageFile],
      { env: S3_CREDENTIALS },
    );
    assert.is(staged.code, 0, staged.stderr);
    const stage = read(PublishSummaryJsonSchema, stageFile);
    assert.equal(
      [stage.move, stage.outcome, stage.shard, stage.already, stage.replaced, stage.guard, stage.keep],
      ['stage', 'staged', { index: k, count: 2 }, false, null, null, null],
    );
    assert.match(staged.stdout, `staged shard ${k} of 2 of version ${stage.version} at ${to} in `);
    assert.equal(stage.objects, { sent: 2, skipped: 0, copied: 0 }, 'one archive and its index');
    assert.ok(stage.bytes.sent > 0 && stage.bytes.skipped === 0 && stage.bytes.copied === 0, JSON.stringify(stage));
    versions.add(stage.version);
    assert.is(stage.files, publishedPaths(out).length);
  }
  assert.is(versions.size, 1, 'both shards stage into one version');
  const [version] = versions;
  const commitFile = path.join(root, 'commit.json');
  const committed = await runCli(
    ['publish', '--commit', '--to', to, '--endpoint', s3.endpoint, '--version', version!, '--keep', '2', '--summary-json', commitFile],
    { env: S3_CREDENTIALS },
  );
  assert.is(committed.code, 0, committed.stderr);
  const commit = read(PublishSummaryJsonSchema, commitFile);
  assert.equal(
    { ...commit, seconds: 0, guard: null },
    {
      command: 'publish',
      move: 'commit',
      outcome: 'live',
      target: to,
      version: version!,
      replaced: null,
      already: false,
      shard: null,
      files: new Set([1, 2].flatMap((k) => publishedPaths(path.join(root, `shard-${k}`)))).size,
      objects: { sent: 0, skipped: 0, copied: 0 },
      bytes: { sent: 0, skipped: 0, copied: 0 },
      seconds: 0,
      guard: null,
      keep: { kept: [version!], removed: [], objectsRemoved: 0 },
    },
  );
  assert.equal(commit.guard?.refused, []);
});

test('publish of a whole tree: live with what it sent; again: already live, nothing sent; a night the guard refuses: its rules, exit 1', async () => {
  const prefix = `${to}-whole`;
  const out = path.join(root, 'public');
  const file = path.join(root, 'publish.json');
  const args = ['publish', '--dir', out, '--to', prefix, '--endpoint', s3.endpoint, '--progress', 'quiet', '--summary-json', file];
  const published = await runCli(args, { env: S3_CREDENTIALS });
  assert.is(published.code, 0, published.stderr);
  const first = read(PublishSummaryJsonSchema, file);
  assert.equal(
    [first.move, first.outcome, first.shard, first.already, first.replaced, first.files],
    ['publish', 'live', { index: 1, count: 1 }, false, null, publishedPaths(out).length],
  );
  assert.match(published.stdout, `packed ${first.files} files`);
  assert.match(published.stdout, `published version ${first.version} to ${prefix} in `);
  assert.equal(first.objects, { sent: 2, skipped: 0, copied: 0 }, 'one archive and its index');
  assert.match(published.stdout, `sent 2 objects (`);
  assert.ok(first.bytes.sent > 0);
  const again = await runCli(args, { env: S3_CREDENTIALS });
  assert.is(again.code, 0, again.stderr);
  const second = read(PublishSummaryJsonSchema, file);
  assert.equal(
    [second.version, second.outcome, second.already, second.objects, second.bytes],
    [first.version, 'live', true, { sent: 0, skipped: 0, copied: 0 }, { sent: 0, skipped: 0, copied: 0 }],
  );

  const other = await writeInputs(path.join(root, 'other-input'), night());
  const otherOut = path.join(root, 'other');
  const built = await runCli(['build', '--input', other, '--out', otherOut, '--now', PINNED_NOW, '--progress', 'quiet']);
  assert.is(built.code, 0, built.stderr);
  const refusedFile = path.join(root, 'refused.json');
  const refused = await runCli(
    ['publish', '--dir', otherOut, '--to', prefix, '--endpoint', s3.endpoint, '--progress', 'quiet', '--summary-json', refusedFile],
    { env: S3_CREDENTIALS },
  );
  assert.is(refused.code, 1, refused.stderr);
  const refusal = read(PublishSummaryJsonSchema, refusedFile);
  assert.equal([refusal.move, refusal.outcome, refusal.guard?.refused], ['publish', 'refused', REFUSED_RULES]);
  assert.match(
    refused.stderr,
    `publish refused: version ${refusal.version} does not go live at ${prefix}; the live version ${first.version} is untouched`,
  );
});

test.after(() => s3.close());
test.run();
