/**
 * The processes a test started and their descendants: recorded from `ps` (Linux and macOS), then
 * a signal to the first one, then a wait until every one of them is gone.
 */
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import { spawnSync, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';

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

/**
 * Whether `pid` still runs. A process that has exited but is not yet reaped (a zombie: its new
 * parent, init, reaps it when it gets to it, about 1.5 s later on this project's VMs) holds
 * nothing, and counts as gone; Linux says so in /proc, elsewhere `kill(pid, 0)` is all there is.
 */
const alive = (pid: number) => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && fs.existsSync('/proc/self/stat')) return false;
  }
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
export async function signalAndWatch(
  npm: ChildProcessByStdio<null, Readable, Readable>,
  ready: (output: string) => boolean,
  signal: NodeJS.Signals,
  deadlineMs: number,
): Promise<{ lastGoneMs: number; tree: Map<number, string>; output: string }> {
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
  assert.equal(
    left.map(([pid, command]) => `${pid} ${command}`),
    [],
    `still running ${deadlineMs} ms after npm exited on ${signal}`,
  );
  return { lastGoneMs, tree, output };
}
