/**
 * One build at a time per --out, decided by an OS lock (flock) that holds across PID namespaces
 * and containers: a second build refuses (exit 75) and never touches the first one's work.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { PINNED_NOW as now, tempDir } from '../helpers/fixtures.ts';
import { runCli } from '../helpers/process.ts';
import { verifyTree } from '../../tree/verify.ts';
import { generateDataset } from '../../data/generate.ts';
import { FileLock } from '../../build/swap/lock.ts';

const canUnshare = spawnSync('unshare', ['--pid', '--fork', 'true']).status === 0;

test('a build in another PID namespace holds --out: a second build refuses at once, and the first publishes every wallet', async () => {
  const root = tempDir();
  const input = path.join(root, 'input');
  const out = path.join(root, 'public');
  await generateDataset({ outDir: input, wallets: 2000, seed: 5, startDate: '2025-06-01', days: 150, seasonOneEnd: '2025-09-01', rowsPerWallet: 20 });
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
  const withHistory = fs.readdirSync(path.join(out, 'v1/address')).filter((wallet) => fs.existsSync(path.join(out, 'v1/address', wallet, 'portfolio.json')));
  assert.is(withHistory.length, wallets);
  const verified = await verifyTree(out);
  assert.equal(verified.failures, []);
});

test('the lock dies with its holder; a lock file nobody holds is free', () => {
  const file = path.join(tempDir(), 'lock');
  const held = FileLock.tryAcquire(file, 'test')!;
  assert.ok(held);
  assert.is(FileLock.tryAcquire(file), null);
  assert.ok(FileLock.isHeld(file));
  held.release();
  assert.not.ok(FileLock.isHeld(file));
  // A process that took the lock and died holds nothing.
  spawnSync('flock', ['-x', file, 'true']);
  const again = FileLock.tryAcquire(file);
  assert.ok(again);
  again!.release();
});

test.run();
