/**
 * The documented commands that start long-running processes (`npx wallet-snapshot serve`,
 * `npm run bench`, `npm start`) stop with every process under them on SIGTERM or SIGINT sent to
 * the PID the user started, which is npm's. npm forwards the signal to its `sh -c`, which dies of
 * it without passing it on: the CLI and the bench notice their parent is gone and stop
 * (core/signals.ts, stopWhenOrphaned). Each test records the whole process tree under npm's PID
 * before the signal and then requires every one of those processes to be gone.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import fs from 'node:fs';
import path from 'node:path';
import { CLI, ROOT } from '../helpers/process.ts';
import { tempDir } from '../helpers/fixtures.ts';

/** Every process under `root` (its children, theirs, ...), from `ps`, which Linux and macOS both have. */
function descendants(root: number): Map<number, string> {
  const rows = spawnSync('ps', ['-A', '-o', 'pid=,ppid=,command='], { encoding: 'utf8' }).stdout.trim().split('\n');
  const children = new Map<number, { pid: number; command: string }[]>();
  for (const row of rows) {
    const match = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(row);
    if (!match) continue;
    const parent = Number(match[2]);
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent)!.push({ pid: Number(match[1]), command: match[3]! });
  }
  const found = new Map<number, string>();
  const visit = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      found.set(child.pid, child.command);
      visit(child.pid);
    }
  };
  visit(root);
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sends `signal` to npm's PID once `ready` holds, then waits for npm to exit and for every process
 * that was under it to be gone (at most `deadlineMs` after npm's exit). Returns how long the
 * last one took after npm's exit. Whatever is still running at the deadline is killed and named.
 */
async function signalAndWatch(npm: ChildProcessByStdio<null, Readable, Readable>, ready: (output: string) => boolean, signal: NodeJS.Signals, deadlineMs: number): Promise<{ lastGoneMs: number; tree: Map<number, string>; output: string }> {
  let output = '';
  const exited = new Promise<void>((resolve) => npm.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const onData = (data: Buffer) => {
      output += data;
      if (ready(output)) {
        npm.stdout.off('data', onData);
        npm.stderr.off('data', onData);
        resolve();
      }
    };
    npm.stdout.on('data', onData);
    npm.stderr.on('data', onData);
    void exited.then(() => reject(new Error(`npm exited before it was ready:\n${output}`)));
  });
  npm.stdout.resume();
  npm.stderr.resume();
  const tree = descendants(npm.pid!);
  npm.kill(signal);
  await exited;
  const npmGone = performance.now();
  while (performance.now() - npmGone < deadlineMs && [...tree.keys()].some(alive)) await sleep(20);
  const lastGoneMs = Math.round(performance.now() - npmGone);
  const left = [...tree].filter(([pid]) => alive(pid));
  for (const [pid] of left) process.kill(pid, 'SIGKILL');
  assert.equal(left.map(([pid, command]) => `${pid} ${command}`), [], `still running ${deadlineMs} ms after npm exited on ${signal}`);
  return { lastGoneMs, tree, output };
}

/** A folder where the package is installed as a dependency: node_modules/wallet-snapshot and its bin. */
function installedApp(): string {
  const app = tempDir('ws-orphans-app-');
  fs.writeFileSync(path.join(app, 'package.json'), '{"name": "app", "private": true}\n');
  fs.mkdirSync(path.join(app, 'node_modules/.bin'), { recursive: true });
  fs.symlinkSync(ROOT, path.join(app, 'node_modules/wallet-snapshot'));
  fs.symlinkSync('../wallet-snapshot/bin/wallet-snapshot.js', path.join(app, 'node_modules/.bin/wallet-snapshot'));
  return app;
}

const tree = tempDir('ws-orphans-tree-');
const built = spawnSync(process.execPath, [CLI, 'build', '--out', path.join(tree, 'public')], { cwd: ROOT, encoding: 'utf8' });
if (built.status !== 0) throw new Error(`build of the sample failed:\n${built.stderr}`);

// SIGTERM only: dash (Debian's and Ubuntu's /bin/sh) holds a SIGINT sent to it until its child has
// exited, so a SIGINT to npx's PID reaches neither the shell's death nor the server (docs/reliability.md).
// Ctrl-C in a terminal signals the whole foreground group, the server included.
for (const signal of ['SIGTERM'] as const) {
  test(`${signal} to npx wallet-snapshot serve stops the server: nothing is left and the port is free`, async () => {
    const app = installedApp();
    const npx = spawn('npx', ['wallet-snapshot', 'serve', '--dir', path.join(tree, 'public'), '--port', '0'], { cwd: app, stdio: ['ignore', 'pipe', 'pipe'] });
    const { lastGoneMs, tree: processes, output } = await signalAndWatch(npx, (text) => /serving \S+ at http/.test(text), signal, 5_000);
    assert.ok([...processes.values()].some((command) => command.includes('wallet-snapshot serve')), [...processes.values()].join('\n'));
    const url = /serving \S+ at (http:\/\/\S+)/.exec(output)![1]!;
    assert.ok(await fetch(`${url}/v1/seasons`).then(() => false, () => true), 'the port still answers');
    process.stderr.write(`  (${signal}: the server was gone ${lastGoneMs} ms after npx exited)\n`);
  });
}

test('SIGTERM to npm run bench stops the bench and every child it started', async () => {
  const data = tempDir('ws-orphans-bench-');
  const npm = spawn('npm', ['run', 'bench', '--', '--wallets', '30', '--shard', '1/2', '--data', data, '--store', path.join(data, 'store')], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  // Once the build runs, the S3 server runs too: the bench has two children of its own to stop.
  const { lastGoneMs, tree: processes } = await signalAndWatch(npm, (text) => /\[bench\] started pid \d+: build/.test(text), 'SIGTERM', 15_000);
  const commands = [...processes.values()];
  assert.ok(commands.some((command) => command.includes('bench/run.ts')), commands.join('\n'));
  assert.ok(commands.some((command) => command.includes('s3rver')) || commands.some((command) => command.includes('publish')), commands.join('\n'));
  assert.ok(commands.some((command) => command.includes('wallet-snapshot.js build')), commands.join('\n'));
  process.stderr.write(`  (the bench and its children were gone ${lastGoneMs} ms after npm exited)\n`);
});

test('SIGTERM to npm start during its build stops the build, and the server never starts', async () => {
  const out = path.join(ROOT, 'public');
  const before = fs.existsSync(out) ? fs.readlinkSync(out) : null;
  const npm = spawn('npm', ['start', '--', '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const { tree: processes, output } = await signalAndWatch(npm, (text) => /check values/.test(text), 'SIGTERM', 8_000);
  assert.ok([...processes.values()].some((command) => command.includes('wallet-snapshot.js build')), [...processes.values()].join('\n'));
  assert.not.match(output, /serving /);
  // The interrupted build left the previous tree in place.
  assert.is(fs.existsSync(out) ? fs.readlinkSync(out) : null, before);
});

test.run();
