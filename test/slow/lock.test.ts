/**
 * One build at a time per --out, decided by an OS lock (an fcntl lock DuckDB takes on a lock file)
 * that holds across PID namespaces and containers and dies with its holder: a second build
 * refuses (exit 75) and never touches the first one's work. No command is needed for it.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { PINNED_NOW as now, tempDir } from '../helpers/fixtures.ts';
import { runCli } from '../helpers/process.ts';
import { verifyTree } from '../../tree/verify.ts';
import { generateDataset } from '../../data/generate.ts';
import { FileLock, readOwner } from '../../build/swap/lock.ts';

const LOCK_MODULE = new URL('../../build/swap/lock.ts', import.meta.url).href;

const canUnshare = spawnSync('unshare', ['--pid', '--fork', 'true']).status === 0;

test('a build in another PID namespace holds --out: a second build refuses at once, and the first publishes every wallet', async () => {
  const root = tempDir();
  const input = path.join(root, 'input');
  const out = path.join(root, 'public');
  await generateDataset({
    outDir: input,
    wallets: 2000,
    seed: 5,
    startDate: '2025-06-01',
    days: 150,
    seasonOneEnd: '2025-09-01',
    rowsPerWallet: 20,
  });
  type Run = Awaited<ReturnType<typeof runCli>>;
  let second = null as Promise<Run> | null;
  // The first build waits in its first read (a FIFO, the injected fault of a hung mount) until the
  // second build has refused: the order does not depend on how fast either starts.
  const gate = path.join(root, 'gate');
  spawnSync('mkfifo', [gate]);
  // The first build runs in a PID namespace of its own when the system allows it (as root here):
  // its PID means nothing to the second build, as between two containers sharing a volume.
  const first = await runCli(['build', '--input', input, '--out', out, '--now', now, '--progress', 'lines'], {
    prefix: canUnshare ? ['unshare', '--pid', '--fork'] : [],
    faults: { blockingRead: gate },
    onStderr: (text) => {
      if (second === null && text.includes('read inputs')) {
        second = runCli(['build', '--input', input, '--out', out, '--now', now, '--progress', 'lines']);
        void second.then(() => fs.writeFileSync(gate, 'opened\n'));
      }
    },
  });
  assert.ok(second !== null, 'the first build never started reading');
  const refused: Run = await second!;
  assert.is(refused.code, 75, refused.stderr);
  assert.match(refused.stderr, `wallet-snapshot: --out ${out} is being built by another build (pid `);
  assert.match(refused.stderr, `it holds the lock ${path.join(root, '.public.lock')}`);
  assert.not.match(refused.stderr, 'read inputs');
  assert.is(first.code, 0, first.stderr);
  assert.match(first.stdout, 'built');
  const wallets = Number(/: (\d+) wallets,/.exec(first.stdout)![1]);
  // Wallet folders with a history (the others hold only a points file).
  const withHistory = fs
    .readdirSync(path.join(out, 'v1/address'))
    .filter((wallet) => fs.existsSync(path.join(out, 'v1/address', wallet, 'portfolio.json')));
  assert.is(withHistory.length, wallets);
  const verified = await verifyTree(out);
  assert.equal(verified.failures, []);
});

/** A process that takes the lock on `file`, says so on stdout, and waits to be killed. */
function holdInChild(file: string): Promise<ChildProcess> {
  const script = `const { FileLock } = await import(${JSON.stringify(LOCK_MODULE)}); const lock = await FileLock.tryAcquire(${JSON.stringify(file)}, 'the child'); process.stdout.write(lock ? 'held\\n' : 'refused\\n'); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', (data) => (String(data) === 'held\n' ? resolve(child) : reject(new Error(`the child said ${data}`))));
    child.once('exit', (code) => reject(new Error(`the child exited with ${code}`)));
  });
}

test('the lock holds between processes and dies with its holder, even killed with SIGKILL', async () => {
  const file = path.join(tempDir(), '.public.lock');
  const child = await holdInChild(file);
  assert.is(await FileLock.tryAcquire(file), null);
  assert.ok(await FileLock.isHeld(file));
  assert.is(readOwner(file), 'the child');
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
  assert.not.ok(await FileLock.isHeld(file));
  const taken = (await FileLock.tryAcquire(file, 'this test'))!;
  assert.ok(taken);
  assert.is(readOwner(file), 'this test');
  taken.release();
});

test('in one process: a lock held is refused a second time, and released once', async () => {
  const file = path.join(tempDir(), 'lock');
  const held = (await FileLock.tryAcquire(file, 'test'))!;
  assert.ok(held);
  assert.is(await FileLock.tryAcquire(file), null);
  assert.ok(await FileLock.isHeld(file));
  held.release();
  held.release();
  assert.not.ok(await FileLock.isHeld(file));
  assert.not.ok(await FileLock.isHeld(path.join(path.dirname(file), 'no-such-lock')));
});

test("an earlier version's lock file (text, flock(2)ed) is replaced by one this version locks", async () => {
  const file = path.join(tempDir(), '.public.lock');
  fs.writeFileSync(file, 'pid 12 on runner-7, started 2025-11-21T17:00:03.120Z\n');
  const taken = (await FileLock.tryAcquire(file))!;
  assert.ok(taken);
  assert.is(fs.readFileSync(file).subarray(8, 12).toString(), 'DUCK');
  taken.release();
  assert.equal(fs.readdirSync(path.dirname(file)), ['.public.lock']);
});

test('no flock, sync or other command on PATH: a build takes its lock, flushes its tree, goes live and verifies', async () => {
  const root = tempDir();
  const out = path.join(root, 'public');
  const empty = path.join(root, 'empty-path');
  fs.mkdirSync(empty);
  const built = await runCli(['build', '--out', out, '--now', now], { env: { PATH: empty } });
  assert.is(built.code, 0, built.stderr);
  assert.match(built.stdout, `live: ${out} -> `);
  assert.equal((await verifyTree(out)).failures, []);
});

test.run();
