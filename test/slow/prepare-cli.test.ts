/**
 * `prepare` and `build --prepared` as processes: the exit codes a CI job acts on, the first line
 * of each refusal the same as build's, options that clash with a prepared folder refused, an
 * altered folder refused by name, prepare's summary as JSON, and a prepare stopped by SIGTERM
 * leaving no work folder and no shard folder behind.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { balance, tempDir, writeInputs, A, B, PINNED_NOW as now } from '../helpers/fixtures.ts';
import { runCli } from '../helpers/process.ts';

async function inputs(): Promise<string> {
  return writeInputs(path.join(tempDir(), 'input'), {
    balances: [balance({ address: A, block_number: 1, balance: '10' }), balance({ address: B, block_number: 2, balance: '20' })],
    points: [{ season: 1, date: '2025-11-01', address: A, points: 3 }],
    seasons: [{ season: 1, as_of: null }],
  });
}

test('usage errors exit 2, bad values 1, and a bad export is refused with the first line build prints', async () => {
  const input = await inputs();
  const night = path.join(tempDir(), 'night');
  const missing = await runCli(['prepare', '--input', input, '--out', night]);
  assert.is(missing.code, 2, missing.stderr);
  assert.match(missing.stderr, "required option '--shards <n>' not specified");
  const zero = await runCli(['prepare', '--input', input, '--out', night, '--shards', '0']);
  assert.is(zero.code, 1, zero.stderr);
  assert.match(zero.stderr, 'expected an integer from 1 to 1024');
  fs.writeFileSync(path.join(input, 'prices.parquet'), 'not parquet');
  const built = await runCli(['build', '--input', input, '--out', path.join(tempDir(), 'public'), '--now', now]);
  const prepared = await runCli(['prepare', '--input', input, '--out', night, '--shards', '2', '--now', now]);
  assert.is(built.code, 1, built.stderr);
  assert.is(prepared.code, built.code);
  assert.is(prepared.stderr.split('\n')[0], built.stderr.split('\n')[0]);
  assert.match(prepared.stderr, 'prices.parquet: cannot be read as a Parquet file');
});

test('build --prepared: refuses --input, --now and --shard beside it, and builds the folder it is given', async () => {
  const input = await inputs();
  const night = path.join(tempDir(), 'night');
  // --summary-json is checked before any work: a folder in its place is refused at once.
  const notFile = await runCli(['prepare', '--input', input, '--out', night, '--shards', '2', '--now', now, '--summary-json', input]);
  assert.is(notFile.code, 1, notFile.stderr);
  assert.match(notFile.stderr, `--summary-json ${input} cannot be written (it is a directory)`);
  assert.not.ok(fs.existsSync(night));
  const summaryFile = path.join(tempDir(), 'ci', 'prepare.json');
  const prepared = await runCli([
    'prepare',
    '--input',
    input,
    '--out',
    night,
    '--shards',
    '2',
    '--now',
    now,
    '--progress',
    'quiet',
    '--summary-json',
    summaryFile,
  ]);
  assert.is(prepared.code, 0, prepared.stderr);
  assert.match(prepared.stdout, /^prepared .+: 2 shards, /);
  const summary = JSON.parse(fs.readFileSync(summaryFile, 'utf8'));
  assert.is(summary.now, now);
  assert.is(summary.shards, 2);
  assert.equal(
    summary.folders,
    [1, 2].map((k) => path.join(night, `shard-${k}-of-2`)),
  );
  assert.ok(summary.stageSeconds['compute points history'] >= 0, JSON.stringify(summary.stageSeconds));
  assert.ok(summary.stageSeconds['split into shards'] >= 0, JSON.stringify(summary.stageSeconds));
  assert.match(
    prepared.stdout,
    `shard: ${path.join(night, 'shard-2-of-2')} (build it with: wallet-snapshot build --prepared ${path.join(night, 'shard-2-of-2')})`,
  );
  const folder = path.join(night, 'shard-1-of-2');
  const clash = await runCli(['build', '--prepared', folder, '--now', now, '--shard', '1/2', '--out', path.join(tempDir(), 'public')]);
  assert.is(clash.code, 1, clash.stderr);
  assert.match(clash.stderr, '--prepared builds from what prepare wrote: --now and --shard cannot be given with it');
  const out = path.join(tempDir(), 'public');
  const built = await runCli(['build', '--prepared', folder, '--out', out, '--progress', 'quiet']);
  assert.is(built.code, 0, built.stderr);
  assert.match(built.stdout, `now: ${now}`);
  const verified = await runCli(['verify', '--dir', out, '--shard', '1/2']);
  assert.is(verified.code, 0, verified.stderr + verified.stdout);
  fs.appendFileSync(path.join(folder, 'tokens.parquet'), 'x');
  const altered = await runCli(['build', '--prepared', folder, '--out', out]);
  assert.is(altered.code, 1, altered.stderr);
  assert.match(altered.stderr, `${path.join(folder, 'tokens.parquet')} was altered after prepare wrote it`);
});

test('SIGTERM stops a prepare: exit 143 or 130, no work folder and no shard folder left', async () => {
  const input = await inputs();
  const night = path.join(tempDir(), 'night');
  let sent = false;
  const result = await runCli(['prepare', '--input', input, '--out', night, '--shards', '2', '--now', now, '--progress', 'lines'], {
    onStderr: (text, child) => {
      if (!sent && text.includes('compute leaderboards...')) {
        sent = true;
        child.kill('SIGTERM');
      }
    },
  });
  assert.ok(sent, result.stderr);
  assert.ok(result.code === 130 || result.signal === 'SIGTERM', `${result.code} ${result.signal} ${result.stderr}`);
  assert.equal(
    fs.readdirSync(night).filter((name) => !name.startsWith('.prepare.lock')),
    [],
  );
});

test.run();
