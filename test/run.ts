/**
 * The test runner: each `test/*.test.ts` suite in a uvu process of its own, two at a time (the
 * machine's cores), longest known suites first. Each suite's output is printed whole when it ends,
 * with its seconds, and the run ends with one line `N passed, N failed`. Exit 1 when any suite
 * fails.
 *
 * `npm test` runs the fast tier; `npm run test:slow` (`--slow`) the suites that drive whole
 * processes through faults (kills inside the swap, signals in every stage, builds in two PID
 * namespaces, a server out of descriptors or flooded by pipelining), publishes over many nights,
 * and the explorer in the Worker; CI runs both. Every rule those suites protect also has a test in
 * the fast tier (docs/architecture.md, "Tests").
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const TEST_DIR = path.dirname(fileURLToPath(import.meta.url));
const UVU = path.join(TEST_DIR, '..', 'node_modules', 'uvu', 'bin.js');
/** Suites that take longest (browsers, child processes, many builds): started first. */
const SLOW_FIRST = ['explorer', 'http', 'server-node', 'cli', 'publish-s3', 'publish-parts', 'publish', 'cdn', 'reference', 'verify', 'shard', 'input-contract', 'faults'];

/** The slow tier's suites, and the runtimes the explorer's browser suite covers in each tier. */
const SLOW_TIER = ['signals', 'swap', 'lock', 'server-node', 'serve-bucket', 'publish-parts'];
const EXPLORER_RUNTIMES = { fast: 'node', slow: 'workerd' };

const arguments_ = process.argv.slice(2);
const tier = arguments_.includes('--slow') ? 'slow' : arguments_.includes('--all') ? 'all' : 'fast';
const pattern = arguments_.find((argument) => !argument.startsWith('--'));
const only = pattern ? new RegExp(pattern) : null;
const inTier = (name: string) => {
  const suite = name.replace('.test.ts', '');
  if (tier === 'all' || suite === 'explorer') return true;
  return SLOW_TIER.includes(suite) === (tier === 'slow');
};
const files = fs
  .readdirSync(TEST_DIR)
  .filter((name) => name.endsWith('.test.ts') && inTier(name) && (!only || only.test(name)))
  .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
const parallel = Math.max(1, Math.min(Number(process.env.TEST_PARALLEL ?? os.availableParallelism()), 4));

let passed = 0;
let failed = 0;
const broken: string[] = [];
const started = performance.now();
// `--typecheck`: the type checks run beside the first suites instead of before them.
const jobs: (() => Promise<void>)[] = [
  ...(arguments_.includes('--typecheck') ? [typeCheck([]), typeCheck(['-p', 'explorer'])] : []),
  ...files.map((name) => () => runSuite(name)),
];
let next = 0;
await Promise.all(Array.from({ length: parallel }, async () => {
  while (next < jobs.length) await jobs[next++]!();
}));
const seconds = ((performance.now() - started) / 1000).toFixed(1);
if (broken.length > 0) process.stdout.write(`\nfailing suites: ${broken.join(', ')}\n`);
process.stdout.write(`\n${files.length} suites in ${seconds} s\n${passed} passed, ${failed} failed\n`);
process.exitCode = failed > 0 || broken.length > 0 ? 1 : 0;

/** `tsc --noEmit` (of the project, or of the explorer page with `-p explorer`) as a job of the run. */
function typeCheck(project: string[]): () => Promise<void> {
  return () => new Promise((resolve) => {
    const label = `tsc --noEmit ${project.join(' ')}`.trim();
    const child = spawn(process.execPath, [path.join(TEST_DIR, '..', 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', ...project], { cwd: path.join(TEST_DIR, '..'), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (data) => (output += data));
    child.stderr.on('data', (data) => (output += data));
    child.on('close', (code) => {
      if (code !== 0) broken.push(label);
      process.stdout.write(`\n=== ${label}: ${code === 0 ? 'no type errors' : `failed\n${output}`}\n`);
      resolve();
    });
  });
}

function rank(name: string): number {
  const index = SLOW_FIRST.indexOf(name.replace('.test.ts', ''));
  return index === -1 ? SLOW_FIRST.length : index;
}

function runSuite(name: string): Promise<void> {
  const suiteStarted = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', UVU, TEST_DIR, `^${name.replaceAll('.', '\\.')}$`], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        NO_COLOR: '1',
        ...(name === 'explorer.test.ts' && tier !== 'all' ? { TEST_RUNTIMES: EXPLORER_RUNTIMES[tier] } : {}),
      },
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
      if (!green) broken.push(name);
      const silent = code === 0 && ok < total ? `(uvu exited 0 with ${total - ok} of ${total} tests not passed: a before or after hook threw; its message, if any, is above)\n` : '';
      const seconds = ((performance.now() - suiteStarted) / 1000).toFixed(1);
      process.stdout.write(`\n=== ${name} (${seconds} s)\n${green ? output.replace(/\n\s*Total:[\s\S]*$/, '\n') : output + silent}`);
      resolve();
    });
  });
}
