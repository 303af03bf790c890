/**
 * The test runner: uvu processes two at a time (the machine's cores), longest known suites first.
 * The fast tier runs its suites in four groups, one uvu process each: a process that loads tsx,
 * DuckDB and the build costs about 1.3 CPU-s before its first test, which one process per suite
 * paid 33 times (bench/LOG.md, "the fast tier's CPU"). The slow tier keeps a process per
 * suite: its suites kill, signal and starve whole processes. Each process's output is printed
 * whole when it ends, with its seconds, and the run ends with one line `N passed, N failed`. A
 * process passes when it exits 0 having run tests and passed them all; the run exits 1 when any
 * fails.
 *
 * The tiers are folders: `npm test` runs `test/*.test.ts` (the fast tier, what a contributor runs
 * after every change), `npm run test:slow` (`--slow`) runs `test/slow/*.test.ts`: whole processes
 * driven through faults (kills inside the swap, signals in every stage, builds in two PID
 * namespaces, a server out of descriptors or flooded by pipelining), publishes over many nights,
 * and the explorer in the Worker; `--all` runs both. CI runs both. A pattern runs the suites
 * whose file names match it (`node --import tsx test/run.ts --slow swap`), with the same cases.
 * Every rule the slow suites protect also has a test in the fast tier (docs/architecture.md,
 * "Tests").
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const TEST_DIR = path.dirname(fileURLToPath(import.meta.url));
const SLOW_DIR = path.join(TEST_DIR, 'slow');
const UVU = path.join(TEST_DIR, '..', 'node_modules', 'uvu', 'bin.js');
/** Suites that take longest (browsers, child processes, many builds): started first. */
const SLOW_FIRST = [
  'explorer',
  'explorer-workerd',
  'http',
  'server-node',
  'cli',
  'publish-s3',
  'publish-shards',
  'publish',
  'readme',
  'cdn',
  'reference',
  'verify',
  'shard',
  'input-contract',
];

const arguments_ = process.argv.slice(2);
const tier = arguments_.includes('--slow') ? 'slow' : arguments_.includes('--all') ? 'all' : 'fast';
const pattern = arguments_.find((argument) => !argument.startsWith('--'));
const only = pattern ? new RegExp(pattern) : null;
const suitesIn = (dir: string) =>
  fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => ({ dir, name }));
const files = [...(tier === 'slow' ? [] : suitesIn(TEST_DIR)), ...(tier === 'fast' ? [] : suitesIn(SLOW_DIR))]
  .filter(({ name }) => !only || only.test(name))
  .sort((a, b) => rank(a.name) - rank(b.name) || a.name.localeCompare(b.name));
const parallel = Math.max(1, Math.min(Number(process.env.TEST_PARALLEL ?? os.availableParallelism()), 4));
/** Processes the fast tier's suites share: twice the processes run at once, so that a long group does not finish alone. */
const FAST_GROUPS = 4;

let passed = 0;
let failed = 0;
const broken: string[] = [];
const started = performance.now();
const jobs = processes(files).map((group) => () => runSuites(group));
let next = 0;
await Promise.all(
  Array.from({ length: parallel }, async () => {
    while (next < jobs.length) await jobs[next++]!();
  }),
);
const seconds = ((performance.now() - started) / 1000).toFixed(1);
if (broken.length > 0) process.stdout.write(`\nfailing suites: ${broken.join(', ')}\n`);
process.stdout.write(`\n${files.length} suites in ${seconds} s\n${passed} passed, ${failed} failed\n`);
process.exitCode = failed > 0 || broken.length > 0 ? 1 : 0;

function rank(name: string): number {
  const index = SLOW_FIRST.indexOf(name.replace('.test.ts', ''));
  return index === -1 ? SLOW_FIRST.length : index;
}

type Suite = { dir: string; name: string };

/** The uvu processes to run: a slow suite alone; the fast ones dealt, longest first, into FAST_GROUPS groups of one folder. */
function processes(suites: Suite[]): Suite[][] {
  const slow = suites.filter(({ dir }) => dir === SLOW_DIR).map((suite) => [suite]);
  const fast = suites.filter(({ dir }) => dir !== SLOW_DIR);
  const groups: Suite[][] = Array.from({ length: Math.min(FAST_GROUPS, fast.length) }, () => []);
  // Dealt back and forth (0 1 2 3 3 2 1 0 ...), so that the longest suites do not all land in the first group.
  fast.forEach((suite, i) => {
    const round = Math.floor(i / groups.length);
    const at = i % groups.length;
    groups[round % 2 === 0 ? at : groups.length - 1 - at]!.push(suite);
  });
  return [...slow, ...groups];
}

function runSuites(suites: Suite[]): Promise<void> {
  const suiteStarted = performance.now();
  const dir = suites[0]!.dir;
  const label = suites.map(({ name }) => path.relative(TEST_DIR, path.join(dir, name))).join(', ');
  const names = suites.map(({ name }) => name.replaceAll('.', '\\.')).join('|');
  return new Promise((resolve) => {
    // Colours off, and only NO_COLOR set: uvu sets FORCE_COLOR unless told --no-color, and Node 22
    // and later warn on stderr in every child process that inherits both (which the CLI tests read).
    const child = spawn(process.execPath, ['--import', 'tsx', UVU, '--no-color', dir, `^(${names})$`], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined },
    });
    let output = '';
    child.stdout.on('data', (data) => (output += data));
    child.stderr.on('data', (data) => (output += data));
    child.on('close', (code) => {
      // Colours off, whatever the environment asked for: the totals are read from the text.
      output = output.replace(/\x1b\[[0-9;]*m/g, '');
      const total = Number(/Total:\s+(\d+)/.exec(output)?.[1] ?? 0);
      const ok = Number(/Passed:\s+(\d+)/.exec(output)?.[1] ?? 0);
      passed += ok;
      failed += total - ok;
      // uvu exits 0 when a `before` hook throws: it counts the suite's tests as not passed and
      // prints no error, so a suite fails unless it ran tests and passed them all.
      const green = code === 0 && total > 0 && ok === total;
      if (!green) broken.push(label);
      const silent =
        code === 0 && ok < total
          ? `(uvu exited 0 with ${total - ok} of ${total} tests not passed: a before or after hook threw; its message, if any, is above)\n`
          : '';
      const seconds = ((performance.now() - suiteStarted) / 1000).toFixed(1);
      process.stdout.write(`\n=== ${label} (${seconds} s)\n${green ? output.replace(/\n\s*Total:[\s\S]*$/, '\n') : output + silent}`);
      resolve();
    });
  });
}
