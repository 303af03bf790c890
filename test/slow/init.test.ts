/**
 * What `init` writes, run: the CLI refuses a second run (exit 1, the files named, nothing changed)
 * and keeps a .gitignore's own lines; the one-runner workflow `init --bucket --prefix` writes,
 * its `run:` steps read from its YAML and run in order against S3 on loopback (s3rver) with the
 * sample exports in exports/, ends with a live version in the bucket, proved by the scrub of that
 * version; the sharded one (three shards) the same, prepare, then each shard's job one after
 * another (its folder handed over through the bucket), then the commit. A night whose workflow
 * still holds init's placeholders stops at its first step, naming the file to edit.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { PINNED_NOW, publishedPaths, tempDir, snapshot } from '../helpers/fixtures.ts';
import { CLI, ROOT, runCli } from '../helpers/process.ts';
import { S3_CREDENTIALS, startS3Server } from '../helpers/s3-server.ts';
import { runWorkflow, type RanStep } from '../helpers/workflow-runner.ts';
import { PLACEHOLDERS } from '../../init/workflows.ts';
import { GITIGNORE_BLOCK } from '../../init/files.ts';
import { WORKFLOW_PATH } from '../../init/write-repository.ts';
import { createStorageClient } from '../../publish/storage.ts';
import { readPointer } from '../../publish/live-pointer.ts';
import { PrepareSummaryJsonSchema } from '../../schemas/prepare-summary.ts';
import { PublishSummaryJsonSchema } from '../../schemas/publish-summary.ts';
import { VerifySummaryJsonSchema } from '../../schemas/verify-summary.ts';

test("npx wallet-snapshot init twice: the second is refused (exit 1, the files named) and changes nothing; a .gitignore's own lines kept", async () => {
  const dir = tempDir('ws-init-cli-');
  fs.writeFileSync(path.join(dir, '.gitignore'), '.env\nsecrets/\n');
  const first = await runCli(['init', dir, '--sharded', '3', '--bucket', 'points-snapshots', '--prefix', 'prod']);
  assert.is(first.code, 0, first.stderr);
  assert.match(
    first.stdout,
    `wrote ${dir}:\n  ${WORKFLOW_PATH}\n  worker.js\n  wrangler.toml\n  .gitignore (init's block appended to yours)\n  README.md (the "Nightly snapshot" section in a new file)\n`,
  );
  assert.is(fs.readFileSync(path.join(dir, '.gitignore'), 'utf8'), `.env\nsecrets/\n\n${GITIGNORE_BLOCK}`);
  const before = snapshot(dir);
  const second = await runCli(['init', dir]);
  assert.is(second.code, 1);
  assert.is(second.stdout, '');
  assert.is(
    second.stderr,
    `wallet-snapshot: init: ${dir} has ${WORKFLOW_PATH}, worker.js, wrangler.toml already; nothing was written (give --force to overwrite them)\n`,
  );
  assert.equal(snapshot(dir), before);
  const forced = await runCli(['init', dir, '--force']);
  assert.is(forced.code, 0, forced.stderr);
  assert.match(fs.readFileSync(path.join(dir, '.gitignore'), 'utf8'), /^\.env\nsecrets\/\n\n# wallet-snapshot init: begin\n/);
  const half = await runCli(['init', tempDir(), '--bucket', 'points-snapshots']);
  assert.is(half.code, 1);
  assert.match(half.stderr, 'init: --bucket was given without --prefix: give both');
  const bad = await runCli(['init', tempDir(), '--sharded', '1']);
  assert.is(bad.code, 1);
  assert.match(bad.stderr, "option '--sharded <n>' argument '1' is invalid. expected a whole number from 2 to 256");
});

// The workflows' steps call jq and the AWS CLI, as GitHub's runners have them: say so rather than fail obscurely.
for (const [tool, args] of [
  ['jq', ['--version']],
  ['aws', ['--version']],
] as const) {
  const found = spawnSync(tool, args, { encoding: 'utf8' });
  assert.ok(
    found.status === 0,
    `the workflows' steps run ${tool}, which this machine lacks (GitHub's runners have it): install it to run this suite`,
  );
}

/** `verify --from` proves a published version; where this CLI lacks it yet, the scrub step is left out. */
const verifyHelp = spawnSync(process.execPath, [CLI, 'verify', '--help'], { encoding: 'utf8' }).stdout;
const scrubAvailable = verifyHelp.includes('--from');

/** The store's names given to init, and the bucket the S3 server on loopback holds. */
const NAMES = { bucket: 'points-snapshots', prefix: 'nightly/prod' };
const NAMED = ['--bucket', NAMES.bucket, '--prefix', NAMES.prefix];

/** A programme's repository as `init` wrote it, with the sample exports committed in exports/ and wallet-snapshot installed. */
async function programme(args: string[]): Promise<string> {
  const dir = path.join(tempDir('ws-init-run-'), 'programme');
  fs.mkdirSync(dir);
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    `${JSON.stringify({ name: 'programme', private: true, devDependencies: { 'wallet-snapshot': '*' } })}\n`,
  );
  const written = await runCli(['init', dir, ...args]);
  assert.is(written.code, 0, written.stderr);
  fs.cpSync(path.join(ROOT, 'data', 'sample'), path.join(dir, 'exports'), { recursive: true });
  // wallet-snapshot as npm installs it: the package in node_modules and its command in .bin.
  fs.mkdirSync(path.join(dir, 'node_modules', '.bin'), { recursive: true });
  fs.symlinkSync(ROOT, path.join(dir, 'node_modules', 'wallet-snapshot'));
  fs.symlinkSync('../wallet-snapshot/bin/wallet-snapshot.js', path.join(dir, 'node_modules', '.bin', 'wallet-snapshot'));
  return dir;
}

interface Night {
  steps: RanStep[];
  work: string;
  live: string | null;
  leftOver: string[];
}

/** The workflow `init ARGS` writes, run once per build instant of `nows` (a night each, a run id each) against one store. */
async function runNights(args: string[], nows: string[] = [PINNED_NOW]): Promise<Night[]> {
  const s3 = await startS3Server(tempDir('ws-init-s3-'), NAMES.bucket);
  try {
    const repository = await programme(args);
    const nights: Night[] = [];
    for (const [index, now] of nows.entries()) nights.push(await runNightIn(repository, s3.endpoint, now, String(4242 + index)));
    return nights;
  } finally {
    await s3.close();
  }
}

const runNight = async (args: string[]): Promise<Night> => (await runNights(args))[0]!;

async function runNightIn(repository: string, endpoint: string, now: string, runId: string): Promise<Night> {
  const s3 = { endpoint };
  {
    const work = tempDir('ws-init-jobs-');
    const text = fs.readFileSync(path.join(repository, WORKFLOW_PATH), 'utf8');
    const steps = runWorkflow(text, {
      runId,
      repository,
      work,
      secrets: {
        SNAPSHOT_ENDPOINT: s3.endpoint,
        SNAPSHOT_ACCESS_KEY_ID: S3_CREDENTIALS.AWS_ACCESS_KEY_ID,
        SNAPSHOT_SECRET_ACCESS_KEY: S3_CREDENTIALS.AWS_SECRET_ACCESS_KEY,
      },
      inputs: { accept: '', now },
      // No profile of this machine's: the AWS CLI and the SDK read the workflow's variables only.
      environment: {
        PATH: process.env.PATH!,
        HOME: process.env.HOME!,
        TMPDIR: tempDir(),
        AWS_CONFIG_FILE: '/nonexistent',
        AWS_SHARED_CREDENTIALS_FILE: '/nonexistent',
        ...(process.env.PYENV_ROOT ? { PYENV_ROOT: process.env.PYENV_ROOT } : {}),
      },
      // The scrub step needs `verify --from`; this build of the CLI may not have it yet.
      skip: (step) => step.id === 'scrub' && !scrubAvailable,
    });
    Object.assign(process.env, S3_CREDENTIALS);
    const client = await createStorageClient({ endpoint: s3.endpoint, maxAttempts: 2, concurrency: 4 });
    try {
      const pointer = await readPointer(client, NAMES);
      const listed = await client.send(new ListObjectsV2Command({ Bucket: NAMES.bucket, Prefix: `${NAMES.prefix}/_nights/` }));
      return { steps, work, live: pointer?.version ?? null, leftOver: (listed.Contents ?? []).map((object) => object.Key!) };
    } finally {
      client.destroy();
    }
  }
}

/** The folder a job ran in. */
function workspaceOf(work: string, job: string): string {
  return path.join(work, fs.readdirSync(work).find((name) => name.startsWith(`${job}-`) && !name.includes('.'))!);
}

/** The publish (or commit) step's JSON, from the workspace of the job that ran it. */
function publishSummary(work: string, job: string, file: string) {
  return PublishSummaryJsonSchema.parse(JSON.parse(fs.readFileSync(path.join(workspaceOf(work, job), 'summaries', file), 'utf8')));
}

test("the one-runner workflow's run: steps, in order, publish the sample exports: a live version, the scrub proving that version", async () => {
  const { steps, work, live } = await runNight(NAMED);
  assert.equal(
    steps.filter((step) => !step.skipped).map((step) => step.name),
    [
      "Check that the bucket and prefix are yours, not init's placeholders",
      'Fetch the exports into exports/',
      'Build',
      'Verify',
      'Publish (the guard first; the pointer last), keeping a week of versions for a rollback',
      ...(scrubAvailable ? ['Scrub the version just published (read back from the bucket and proved)'] : []),
    ],
  );
  const published = publishSummary(work, 'night', 'publish.json');
  // Every file of the job's tree the store holds (all but the static hosts' own).
  const files = publishedPaths(path.join(workspaceOf(work, 'night'), 'public')).length;
  assert.equal(
    [published.move, published.outcome, published.files, published.target],
    ['publish', 'live', files, `s3://${NAMES.bucket}/${NAMES.prefix}`],
  );
  assert.is(live, published.version);
  if (scrubAvailable) {
    const scrub = scrubSummary(work, 'night');
    assert.equal([scrub.ok, scrub.store?.version, scrub.store?.live, scrub.files], [true, published.version, true, files]);
    assert.match(
      stepSummary(work, 'night'),
      `Scrub of version ${published.version} (live): ${files} of ${files} members drawn: every member read is as published.\n`,
    );
  }
});

test("a night whose workflow still holds init's placeholders stops at its first step, naming the file to edit", async () => {
  const repository = await programme([]);
  const work = tempDir('ws-init-jobs-');
  try {
    runWorkflow(fs.readFileSync(path.join(repository, WORKFLOW_PATH), 'utf8'), {
      repository,
      work,
      secrets: { SNAPSHOT_ENDPOINT: 'http://127.0.0.1:9', SNAPSHOT_ACCESS_KEY_ID: 'k', SNAPSHOT_SECRET_ACCESS_KEY: 's' },
      inputs: { accept: '', now: PINNED_NOW },
      environment: { PATH: process.env.PATH!, HOME: process.env.HOME! },
    });
    assert.unreachable('the night ran past its first step');
  } catch (error) {
    const message = (error as Error).message;
    assert.ok(message.startsWith(`night, "Check that the bucket and prefix are yours, not init's placeholders" exited with 1:\n`), message);
    assert.match(
      message,
      `::error file=${WORKFLOW_PATH},title=SNAPSHOT_BUCKET is a placeholder::SNAPSHOT_BUCKET is ${PLACEHOLDERS.bucket}`,
    );
    assert.match(message, `put your prefix in ${WORKFLOW_PATH} (env: SNAPSHOT_PREFIX) and in wrangler.toml (TREE_PREFIX)`);
  }
  // Nothing ran after it: no job folder holds a build.
  assert.not.ok(fs.readdirSync(work).some((name) => fs.existsSync(path.join(work, name, 'summaries'))));
});

/** verify --from's JSON (the scrub step's), from the workspace of the job that ran it. */
function scrubSummary(work: string, job: string) {
  return VerifySummaryJsonSchema.parse(JSON.parse(fs.readFileSync(path.join(workspaceOf(work, job), 'summaries', 'scrub.json'), 'utf8')));
}

/** What the job's steps wrote to the run's page ($GITHUB_STEP_SUMMARY). */
function stepSummary(work: string, job: string): string {
  return fs.readFileSync(
    path.join(work, fs.readdirSync(work).find((name) => name.startsWith(`${job}-`) && name.endsWith('.step-summary.md'))!),
    'utf8',
  );
}

test("the sharded workflow (3 shards), two nights: prepare, each shard's job one after another, then the commit; the second night reuses the first's folder", async () => {
  const nextDay = new Date(Date.parse(PINNED_NOW) + 86_400_000).toISOString().replace('.000Z', 'Z');
  const [first, second] = await runNights(['--sharded', '3', ...NAMED], [PINNED_NOW, nextDay]);
  const ran = first!.steps
    .filter((step) => !step.skipped)
    .map((step) => `${step.job}${step.matrix ? ` ${step.matrix.shard}` : ''}: ${step.name}`);
  const shardSteps = (k: number) => [
    `shard ${k}: Fetch this shard's folder`,
    `shard ${k}: Build the shard from its folder`,
    `shard ${k}: Verify the shard (its wallets and the shared files)`,
    `shard ${k}: Stage the shard (the pointer is not touched)`,
  ];
  assert.equal(ran, [
    "prepare: Check that the bucket and prefix are yours, not init's placeholders",
    'prepare: Fetch the exports into exports/',
    "prepare: Fetch the last published night's folder (none, or an incomplete one, makes a full night)",
    'prepare: Prepare the night (one build instant for every shard; the unchanged past days reused)',
    'prepare: Hand the night to its shard jobs through the bucket',
    ...shardSteps(1),
    ...shardSteps(2),
    ...shardSteps(3),
    'commit: Commit (every shard staged and agreeing, and the guard on their sum), keeping a week of versions',
    ...(scrubAvailable ? ['commit: Scrub the version just published (read back from the bucket and proved)'] : []),
    "commit: Keep this night's folder for the next night, remove the one before",
  ]);
  const committed = publishSummary(first!.work, 'commit', 'commit.json');
  // The count itself is held to the shards' trees in test/slow/summary-json.test.ts.
  assert.equal([committed.move, committed.outcome, committed.already], ['commit', 'live', false]);
  assert.ok(committed.files > 0);
  assert.is(first!.live, committed.version);
  if (scrubAvailable) assert.is(scrubSummary(first!.work, 'commit').store?.version, committed.version);
  // The first night had no folder before it; the second reuses the first's, and publishes too.
  const kind = (night: Night) => prepareSummary(night.work).night;
  assert.equal(kind(first!), { kind: 'full', why: 'no previous night at night' });
  const reused = kind(second!);
  assert.is(reused.kind, 'incremental', JSON.stringify(reused));
  assert.match(reused.why, /^1 new day/);
  const recommitted = publishSummary(second!.work, 'commit', 'commit.json');
  assert.equal([recommitted.outcome, second!.live], ['live', recommitted.version]);
  assert.is.not(recommitted.version, committed.version);
  // Only the second night's folder and the name of the last night stay in the bucket.
  const nights = `${NAMES.prefix}/_nights/`;
  assert.ok(second!.leftOver.includes(`${nights}last`));
  assert.equal(
    [...new Set(second!.leftOver.filter((key) => !key.endsWith('/last')).map((key) => key.slice(nights.length).split('/')[0]))],
    ['4243'],
  );
});

/** prepare's JSON, from the workspace of the prepare job. */
function prepareSummary(work: string) {
  const workspace = fs.readdirSync(work).find((name) => name.startsWith('prepare-') && !name.includes('.'))!;
  return PrepareSummaryJsonSchema.parse(JSON.parse(fs.readFileSync(path.join(work, workspace, 'summaries', 'prepare.json'), 'utf8')));
}

test.run();
