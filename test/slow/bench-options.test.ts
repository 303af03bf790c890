/**
 * `npm run bench`: a bad or unknown option stops it at once with the usage, before any work;
 * `--help` prints the usage and exits 0; a SIGTERM stops every child process it started.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/process.ts';
import { tempDir } from '../helpers/fixtures.ts';
import { parseBenchOptions } from '../../bench/options.ts';

const BENCH = path.join(ROOT, 'bench/run.ts');
const bench = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', BENCH, ...args], { cwd: ROOT, encoding: 'utf8' });
const USAGE_LINE = 'usage: npm run bench -- [--wallets N] [--seed S] [--server-seconds S] [--keep]';

test('bad values and unknown options exit 2 with the usage', () => {
  for (const [args, message] of [
    [['--wallets', 'abc'], '--wallets "abc" is not a whole number of at least 1'],
    [['--wallets', '0'], '--wallets "0" is not a whole number of at least 1'],
    [['--server-seconds', '1.5'], '--server-seconds "1.5" is not a whole number of at least 1'],
    [['--bogus'], "Unknown option '--bogus'"],
    [['--shard', '3/2'], '--shard "3/2" is not K/N with 1 <= K <= N (e.g. 1/8)'],
    [['--stage-all'], '--stage-all needs --shards N'],
    [['--shards', '4'], '--shards goes with --stage-all or --incremental'],
    [['--shard', '1/2', '--stage-all', '--shards', '2'], '--shard, --stage-all and --incremental exclude each other'],
    [['--incremental', '--days', '10'], '--days "10" is not a whole number of at least 40'],
    [['--incremental', '--prepare-threads', '0'], '--prepare-threads "0" is not a whole number of at least 1'],
    [['--prepare-threads', '2'], '--prepare-threads goes with --incremental'],
  ] as const) {
    const result = bench(...args);
    assert.is(result.status, 2, args.join(' '));
    assert.match(result.stderr, `bench: ${message}`);
    assert.match(result.stderr, USAGE_LINE);
  }
});

test("--incremental: the previous night and tonight, in N shards (default 10) over D days of history (default 365), prepare's threads", () => {
  assert.equal(
    [parseBenchOptions(['--incremental'])!.night, parseBenchOptions(['--incremental'])!.days],
    [{ kind: 'incremental', shards: 10, prepareThreads: null }, 365],
  );
  assert.equal(parseBenchOptions(['--incremental', '--shards', '3', '--days', '180'])!.night, {
    kind: 'incremental',
    shards: 3,
    prepareThreads: null,
  });
  assert.is(parseBenchOptions(['--incremental', '--days', '730'])!.days, 730);
  assert.equal(parseBenchOptions(['--incremental', '--prepare-threads', '4'])!.night, {
    kind: 'incremental',
    shards: 10,
    prepareThreads: 4,
  });
});

test('without --wallets the bench runs 10,000 wallets (a run its user waits for), and says so', () => {
  assert.is(parseBenchOptions([])!.wallets, 10_000);
  assert.is(parseBenchOptions(['--wallets', '100000'])!.wallets, 100_000);
  assert.match(bench('--help').stdout, '--wallets N         dataset size (default 10000');
});

test('--help prints the usage on stdout and exits 0', () => {
  for (const flag of ['--help', '-h']) {
    const result = bench(flag);
    assert.is(result.status, 0, flag);
    assert.match(result.stdout, USAGE_LINE);
    assert.match(result.stdout, '--shard K/N');
    assert.match(result.stdout, '--stage-all');
    assert.is(result.stderr, '');
  }
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('SIGTERM to the bench stops every child it started (the S3 server and the build) and exits 130', async () => {
  const data = tempDir('ws-bench-signal-');
  const store = path.join(data, 'store');
  const child = spawn(process.execPath, ['--import', 'tsx', BENCH, '--wallets', '30', '--shard', '1/2', '--data', data, '--store', store], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const pids = new Map<number, string>();
  let signalled = false;
  child.stdout.resume();
  child.stderr.on('data', (data: Buffer) => {
    stderr += data;
    for (const match of stderr.matchAll(/\[bench\] started pid (\d+): (.*)/g)) pids.set(Number(match[1]), match[2]!);
    // Once the build runs, the S3 server runs too: two children to stop.
    if (!signalled && [...pids.values()].some((name) => name.startsWith('build'))) {
      signalled = true;
      child.kill('SIGTERM');
    }
  });
  const [code, signal] = await new Promise<[number | null, string | null]>((resolve) =>
    child.once('close', (exitCode, exitSignal) => resolve([exitCode, exitSignal])),
  );
  try {
    assert.ok(signalled, `the bench never started a build:\n${stderr}`);
    assert.is(code, 130, `exit ${code} ${signal}:\n${stderr}`);
    const names = [...pids.values()];
    assert.ok(names.includes('s3rver'), names.join(', '));
    assert.ok(
      names.some((name) => name.startsWith('build')),
      names.join(', '),
    );
    for (const [pid, name] of pids) assert.not.ok(alive(pid), `${name} (pid ${pid}) is still running`);
  } finally {
    for (const pid of pids.keys()) if (alive(pid)) process.kill(pid, 'SIGKILL');
    fs.rmSync(data, { recursive: true, force: true });
  }
});

test.run();
