/**
 * Signals stop a build in any stage, also when a read blocks; inputs that would block are
 * refused up front; an input replaced during the build changes nothing; a damaged Parquet page
 * is bad input wherever DuckDB finds it. After each, the previous tree is as it was.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { A, PINNED_NOW as now, balance, tempDir, treeHashes, writeInputs } from '../helpers/fixtures.ts';
import { runCli } from '../helpers/process.ts';
import { buildSnapshot } from '../../build/index.ts';
import { resolveBuildConfig } from '../../build/config.ts';
import { generateDataset } from '../../data/generate.ts';

const sorted = (dir: string) => [...treeHashes(dir)].sort();
const root = tempDir();
const input = path.join(root, 'input');
const out = path.join(root, 'public');
let previous: [string, string][] = [];

/** Work a build left beside --out: temporary links, work folders, half-deleted trees. */
const leftovers = () => [
  ...fs.readdirSync(root).filter((entry) => entry.startsWith('.public.link-')),
  ...fs.readdirSync(path.join(root, '.public.builds')).filter((entry) => /^(work|trash)-/.test(entry)),
];

test.before(async () => {
  await generateDataset({
    outDir: input,
    wallets: 1500,
    seed: 7,
    startDate: '2025-06-01',
    days: 150,
    seasonOneEnd: '2025-09-01',
    rowsPerWallet: 20,
  });
  const small = await writeInputs(path.join(root, 'small'), { balances: [balance({ address: A, block_number: 1, balance: '1' })] });
  await buildSnapshot(resolveBuildConfig({ input: small, out, now, progress: 'quiet' }));
  previous = sorted(out);
});

test('SIGHUP in the wallet stage: exit 129, the previous tree untouched, no work left', async () => {
  let sent = false;
  const result = await runCli(['build', '--input', input, '--out', out, '--now', now, '--progress', 'lines'], {
    onStderr: (text, child) => {
      if (!sent && text.includes('write wallets')) {
        sent = true;
        child.kill('SIGHUP');
      }
    },
  });
  assert.ok(sent, 'the build never reached the wallet stage');
  assert.is(result.code, 129, result.stderr);
  assert.match(result.stderr, 'interrupted by SIGHUP; the previous tree was left untouched');
  assert.equal(sorted(out), previous);
  assert.equal(leftovers(), []);
});

/** A build whose DuckDB read blocks on a FIFO no one writes (an injected fault), as on a hung mount. */
function blockedBuild(signals: NodeJS.Signals[]) {
  const fifo = path.join(root, `blocking-${signals.join('-')}`);
  execFileSync('mkfifo', [fifo]);
  let sentAt = 0;
  const result = runCli(['build', '--input', input, '--out', out, '--now', now, '--progress', 'lines'], {
    faults: { blockingRead: fifo },
    onStderr: (text, child) => {
      if (sentAt === 0 && text.includes('read inputs')) {
        sentAt = Date.now();
        // Well inside the blocked read.
        setTimeout(() => signals.forEach((signal, i) => setTimeout(() => child.kill(signal), i * 200)), 500);
      }
    },
  });
  return result.then((finished) => ({ ...finished, seconds: (Date.now() - sentAt) / 1000 - 0.5 }));
}

test('SIGTERM while DuckDB is blocked in a read: the build ends after a short grace, by the signal, its work removed', async () => {
  const result = await blockedBuild(['SIGTERM']);
  assert.is(result.signal, 'SIGTERM', result.stderr);
  assert.match(result.stderr, 'interrupted by SIGTERM; the previous tree was left untouched (the build did not stop within 3 s');
  assert.ok(result.seconds < 8, `${result.seconds} s`);
  assert.equal(sorted(out), previous);
  // The work was moved aside at once and is being deleted by a detached rm.
  for (let i = 0; i < 50 && leftovers().length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(leftovers(), []);
});

test('a second signal exits at once', async () => {
  const result = await blockedBuild(['SIGINT', 'SIGINT']);
  assert.is(result.signal, 'SIGINT', result.stderr);
  assert.match(result.stderr, 'SIGINT again: exiting at once');
  assert.ok(result.seconds < 2, `${result.seconds} s`);
  assert.equal(sorted(out), previous);
});

test('a FIFO as an input file is refused up front (exit 1), never opened', async () => {
  const piped = path.join(root, 'piped');
  fs.mkdirSync(piped);
  for (const name of fs.readdirSync(input)) fs.copyFileSync(path.join(input, name), path.join(piped, name));
  fs.rmSync(path.join(piped, 'points.parquet'));
  execFileSync('mkfifo', [path.join(piped, 'points.parquet')]);
  let killed = false;
  const result = await runCli(['build', '--input', piped, '--out', out, '--now', now], {
    onStderr: (_text, child) => void setTimeout(() => ((killed = true), child.kill('SIGKILL')), 20_000).unref(),
  });
  assert.not.ok(killed, 'the build hung on the FIFO');
  assert.is(result.code, 1, result.stderr);
  assert.match(result.stderr, `points.parquet: ${path.join(piped, 'points.parquet')} is a FIFO (named pipe), not a regular file`);
  assert.not.match(result.stderr, 'read inputs');
  assert.equal(sorted(out), previous);
});

test('an input renamed over during the build changes nothing of what is written (each file is read through the descriptor opened first)', async () => {
  const reference = path.join(root, 'reference');
  await buildSnapshot(resolveBuildConfig({ input, out: reference, now, progress: 'quiet' }));
  const changing = path.join(root, 'changing');
  fs.cpSync(input, changing, { recursive: true });
  // The next export: other points, a file of its own renamed over the one being read.
  const next = await writeInputs(path.join(root, 'next-points'), {
    points: [{ season: 2, date: '2025-11-19', address: A, points: 1e9 }],
    seasons: [
      { season: 1, as_of: '2025-09-01' },
      { season: 2, as_of: null },
    ],
  });
  let replaced = false;
  const target = path.join(root, 'replaced-during');
  const result = await runCli(['build', '--input', changing, '--out', target, '--now', now, '--progress', 'lines'], {
    onStderr: (text) => {
      // After the points were checked, before the leaderboards read them again.
      if (!replaced && text.includes('compute snapshots')) {
        replaced = true;
        fs.renameSync(path.join(next, 'points.parquet'), path.join(changing, 'points.parquet'));
      }
    },
  });
  assert.ok(replaced);
  assert.is(result.code, 0, result.stderr);
  assert.equal(sorted(target), sorted(reference));
});

test('a damaged Parquet page is bad input naming the file (exit 1), wherever DuckDB finds it', async () => {
  const damaged = path.join(root, 'damaged');
  fs.cpSync(input, damaged, { recursive: true });
  const file = path.join(damaged, 'balances.parquet');
  const bytes = fs.readFileSync(file);
  // Inside the compressed pages of several columns (the footer, at the end, stays readable).
  for (const at of [0.3, 0.5, 0.7, 0.8, 0.85]) bytes.fill(0, Math.floor(bytes.length * at), Math.floor(bytes.length * at) + 16);
  fs.writeFileSync(file, bytes);
  const result = await runCli(['build', '--input', damaged, '--out', out, '--now', now]);
  assert.is(result.code, 1, result.stderr);
  assert.match(result.stderr, `wallet-snapshot: balances.parquet: cannot be read as a Parquet file (`);
  assert.match(result.stderr, file);
  assert.not.match(result.stderr, '/proc/self/fd');
  assert.equal(sorted(out), previous);
});

test.run();
