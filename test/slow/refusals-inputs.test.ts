/**
 * What the check stage refuses of the inputs as a whole, with exit 1 and a message naming what
 * the user typed: exports with neither a balance nor a points row (unless --allow-empty), and a
 * --now before every event or more than 400 days after the latest (unless --allow-distant-now).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { balance, tempDir, unix, writeInputs, A } from '../helpers/fixtures.ts';
import { runCli } from '../helpers/process.ts';
import { DISTANT_NOW_DAYS } from '../../build/config.ts';

const build = (input: string, out: string, ...options: string[]) =>
  runCli(['build', '--input', input, '--out', out, '--progress', 'quiet', ...options]);

test('seven exports with zero rows are refused, naming them; --allow-empty builds them', async () => {
  const root = tempDir();
  const input = await writeInputs(path.join(root, 'input'), { tokens: [] });
  const out = path.join(root, 'public');
  const refused = await build(input, out, '--now', '2025-11-21T17:00:00Z');
  assert.is(refused.code, 1, refused.stderr);
  assert.is(
    refused.stderr,
    'wallet-snapshot: all seven exports have zero rows (balances.parquet, tokens.parquet, venue_b_accounts.parquet, prices.parquet, points.parquet, multipliers.parquet, seasons.parquet): ' +
      'the tree would hold no wallet and no participant, and publishing it would empty every answer; check the export, or give --allow-empty to build it anyway\n',
  );
  assert.not.ok(fs.existsSync(out), 'the refused build left an --out');
  const allowed = await build(input, out, '--now', '2025-11-21T17:00:00Z', '--allow-empty');
  assert.is(allowed.code, 0, allowed.stderr);
  assert.match(allowed.stdout, /built .*: 0 wallets, /);
  // Prices and seasons alone still make a tree of nothing: the empty ones are named.
  const some = await writeInputs(path.join(root, 'some'), {
    prices: [{ chain_id: 1, token: 'uty', date: '2025-11-19', usd_price: 1 }],
    seasons: [{ season: 1, as_of: null }],
  });
  const named = await build(some, out, '--now', '2025-11-21T17:00:00Z');
  assert.is(named.code, 1, named.stderr);
  assert.match(
    named.stderr,
    'wallet-snapshot: balances.parquet, venue_b_accounts.parquet, points.parquet, multipliers.parquet have zero rows: the tree would hold no wallet and no participant',
  );
});

/** One wallet's balance on 2025-11-19 at noon in New York, and its points on the 20th. */
async function oneWallet(dir: string): Promise<string> {
  return writeInputs(dir, {
    balances: [balance({ address: A, block_number: 1, balance: '1', timestamp: unix('2025-11-19T12:00:00-05:00') })],
    points: [{ season: 1, date: '2025-11-20', address: A, points: 5 }],
    seasons: [{ season: 1, as_of: null }],
  });
}

test("a --now before every event is refused, naming --now, the value and the events' first and last instants", async () => {
  const root = tempDir();
  const input = await oneWallet(path.join(root, 'input'));
  const out = path.join(root, 'public');
  for (const now of ['1970-01-01T00:00:00Z', '2024-11-21T17:00:00Z']) {
    const result = await build(input, out, '--now', now);
    assert.is(result.code, 1, result.stderr);
    assert.is(
      result.stderr,
      `wallet-snapshot: --now "${now}" is before every event in the inputs, which run from 2025-11-19T17:00:00Z (a timestamp in balances.parquet) to 2025-11-20 (a date in points.parquet): ` +
        'the tree would show none of them (a typo in the year?); give --allow-distant-now to build it anyway\n',
    );
  }
  assert.not.ok(fs.existsSync(out));
  const allowed = await build(input, out, '--now', '2024-11-21T17:00:00Z', '--allow-distant-now');
  assert.is(allowed.code, 0, allowed.stderr);
  assert.match(allowed.stdout, /: 0 wallets, /);
});

test(`a --now more than ${DISTANT_NOW_DAYS} days after the latest event is refused, naming it; up to ${DISTANT_NOW_DAYS} days builds`, async () => {
  const root = tempDir();
  const input = await oneWallet(path.join(root, 'input'));
  const out = path.join(root, 'public');
  // The latest event is the points' day, 2025-11-20, which starts at 05:00 UTC in New York.
  for (const [now, days] of [
    ['2125-11-21T15:00:00Z', 36525],
    ['9999-12-31T00:00:00Z', 2912483],
    ['2026-12-26T05:00:00Z', 401],
  ] as const) {
    const started = performance.now();
    const result = await build(input, out, '--now', now);
    assert.is(result.code, 1, result.stderr);
    assert.is(
      result.stderr,
      `wallet-snapshot: --now "${now}" is ${days} days after the latest event in the inputs, 2025-11-20 (a date in points.parquet): ` +
        `a --now more than ${DISTANT_NOW_DAYS} days after it is refused, as every wallet's daily history would run on to it (a typo in the year?); give --allow-distant-now to build it anyway\n`,
    );
    // 9999-12-31 ran for two minutes and 13 GB before it failed.
    assert.ok(performance.now() - started < 30_000, `${now} took ${performance.now() - started} ms to refuse`);
  }
  assert.not.ok(fs.existsSync(out));
  const last = await build(input, out, '--now', '2026-12-25T05:00:00Z');
  assert.is(last.code, 0, last.stderr);
  assert.match(last.stdout, 'now: 2026-12-25T05:00:00Z (last closed day 2026-12-24)');
  const allowed = await build(input, out, '--now', '2026-12-26T05:00:00Z', '--allow-distant-now');
  assert.is(allowed.code, 0, allowed.stderr);
});

test('without --now, the clock: inputs a long time past build (the sample ages), inputs all in the future are refused', async () => {
  const root = tempDir();
  const old = await writeInputs(path.join(root, 'old'), {
    balances: [balance({ address: A, block_number: 1, balance: '1', timestamp: unix('2020-01-01T12:00:00Z') })],
  });
  const built = await build(old, path.join(root, 'public'));
  assert.is(built.code, 0, built.stderr);
  const future = await writeInputs(path.join(root, 'future'), {
    balances: [balance({ address: A, block_number: 1, balance: '1', timestamp: unix('2999-01-01T00:00:00Z') })],
  });
  const refused = await build(future, path.join(root, 'public'));
  assert.is(refused.code, 1, refused.stderr);
  assert.match(
    refused.stderr,
    /^wallet-snapshot: the build instant \d{4}-\d\d-\d\dT[\d:.]+Z \(the current time: no --now was given\) is before every event in the inputs, all at 2999-01-01T00:00:00Z \(a timestamp in balances\.parquet\): /,
  );
  assert.match(refused.stderr, '(is the clock right?); give --allow-distant-now to build it anyway');
});

test.run();
