/**
 * Options and inputs that make no sense are refused with exit 1 and a message naming what the user
 * typed, before anything is built: --now outside the years 1970 to 9999, --threads beyond the
 * bound (and a warning above the cores), an incomplete input reported whole, serve --from that is
 * not an s3:// URL. The refusals that need the inputs read (empty exports, a --now far from the
 * events) are in refusals-inputs.test.ts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { balance, tempDir, writeInputs, A, PINNED_NOW } from '../helpers/fixtures.ts';
import { runCli } from '../helpers/process.ts';
import { MAX_THREADS } from '../../build/config.ts';

test('--now outside the years 1970 to 9999 exits 1 naming --now and the value, before the input is read', async () => {
  const root = tempDir();
  const out = path.join(root, 'out');
  // 0000 and +275760 ended in internal errors (exit 70); 0025 is a typo for 2025; 9999-12-31 at
  // 23:00 in New York is already the year 10000 in UTC.
  for (const now of [
    '0000-01-01T00:00:00Z',
    '+275760-09-13T00:00:00Z',
    '0025-11-21T15:00:00Z',
    '1969-12-31T23:59:59Z',
    '9999-12-31T23:00:00-05:00',
  ]) {
    const result = await runCli(['build', '--input', path.join(root, 'no-such-folder'), '--out', out, '--now', now]);
    assert.is(result.code, 1, `${now}: ${result.stderr}`);
    assert.match(result.stderr, `wallet-snapshot: --now "${now}" is in the year `);
    assert.match(result.stderr, 'a build instant must fall in the years 1970 to 9999');
    assert.not.match(result.stderr, 'internal error');
  }
  assert.not.ok(fs.existsSync(out));
});

test(`--threads above ${MAX_THREADS} (or the cores, if more) exits 1 naming the value; above the cores, a warning`, async () => {
  const cores = os.availableParallelism();
  const bound = Math.max(MAX_THREADS, cores);
  const root = tempDir();
  for (const threads of ['1000000', String(bound + 1)]) {
    const result = await runCli([
      'build',
      '--input',
      path.join(root, 'no-such-folder'),
      '--out',
      path.join(root, 'public'),
      '--threads',
      threads,
      '--now',
      PINNED_NOW,
    ]);
    assert.is(result.code, 1, result.stderr);
    assert.match(result.stderr, `wallet-snapshot: --threads ${threads} is out of range: expected an integer from 1 to ${bound}`);
  }
  if (cores + 1 > bound) return;
  const input = await writeInputs(path.join(root, 'input'), { balances: [balance({ address: A, block_number: 1, balance: '1' })] });
  const result = await runCli([
    'build',
    '--input',
    input,
    '--out',
    path.join(root, 'public'),
    '--now',
    PINNED_NOW,
    '--threads',
    String(cores + 1),
    '--progress',
    'quiet',
  ]);
  assert.is(result.code, 0, result.stderr);
  assert.is(
    result.stderr,
    `wallet-snapshot: warning: --threads ${cores + 1} is more than this machine's ${cores} cores; the threads will take turns on them (no faster, more memory)\n`,
  );
  const within = await runCli([
    'build',
    '--input',
    input,
    '--out',
    path.join(root, 'public'),
    '--now',
    PINNED_NOW,
    '--threads',
    String(cores),
    '--progress',
    'quiet',
  ]);
  assert.is(within.code, 0, within.stderr);
  assert.is(within.stderr, '');
});

test('an incomplete input is reported whole: every missing file, every missing column of every file', async () => {
  const root = tempDir();
  const input = await writeInputs(path.join(root, 'input'), {}, { tokens: { decimals: null }, points: { address: null, points: null } });
  fs.rmSync(path.join(input, 'prices.parquet'));
  fs.rmSync(path.join(input, 'seasons.parquet'));
  const out = path.join(root, 'public');
  const result = await runCli(['build', '--input', input, '--out', out, '--now', PINNED_NOW]);
  assert.is(result.code, 1, result.stderr);
  assert.is(
    result.stderr,
    'wallet-snapshot: the input is incomplete, 5 problems (all seven Parquet files are required, each with the columns of docs/input.md; an empty table is a file with zero rows):\n' +
      '  - tokens.parquet: missing column "decimals" (expected an integer from 0 to 36); the file has chain_id, token\n' +
      `  - missing input file prices.parquet in ${input}\n` +
      '  - points.parquet: missing column "address" (expected 0x followed by 40 hex digits); the file has season, date\n' +
      '  - points.parquet: missing column "points" (expected a finite number); the file has season, date\n' +
      `  - missing input file seasons.parquet in ${input}\n`,
  );
  // Decided before --out is claimed.
  assert.not.ok(fs.existsSync(out));
  // With every file there, the missing columns of all of them, together.
  await writeInputs(input, {}, { tokens: { decimals: null }, points: { points: null } });
  const columns = await runCli(['build', '--input', input, '--out', out, '--now', PINNED_NOW]);
  assert.is(columns.code, 1, columns.stderr);
  assert.match(columns.stderr, 'the input is incomplete, 2 problems');
  assert.match(columns.stderr, '  - tokens.parquet: missing column "decimals"');
  assert.match(
    columns.stderr,
    '  - points.parquet: missing column "points" (expected a finite number); the file has season, date, address\n',
  );
  // A problem alone keeps its one line.
  await writeInputs(path.join(root, 'one'), {});
  fs.rmSync(path.join(root, 'one', 'multipliers.parquet'));
  const one = await runCli(['build', '--input', path.join(root, 'one'), '--out', out, '--now', PINNED_NOW]);
  assert.is(one.code, 1, one.stderr);
  assert.is(
    one.stderr,
    `wallet-snapshot: missing input file multipliers.parquet in ${path.join(root, 'one')} (all seven Parquet files are required; an empty table is a file with zero rows)\n`,
  );
});

test("serve --from that is not s3://BUCKET[/PREFIX] exits 1 naming --from, not publish's --to", async () => {
  for (const runtime of [[], ['--runtime', 'workerd']]) {
    const result = await runCli(['serve', '--from', 'newcomer/live', ...runtime]);
    assert.is(result.code, 1, result.stderr);
    assert.is(result.stderr, 'wallet-snapshot: --from newcomer/live: expected s3://BUCKET[/PREFIX], the location publish --to was given\n');
  }
  const bucket = await runCli(['serve', '--from', 's3://Newcomer_Bucket/live', '--runtime', 'workerd']);
  assert.is(bucket.code, 1, bucket.stderr);
  assert.match(bucket.stderr, 'wallet-snapshot: --from s3://Newcomer_Bucket/live: "Newcomer_Bucket" is not a bucket name');
  assert.not.match(bucket.stderr, '--to');
});

test.run();
