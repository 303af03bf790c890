/** The export contract: every contract violation fails the build with an actionable message. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import {
  A,
  B,
  RawSql,
  SUB,
  balance,
  build,
  buildReusingThreads,
  tempDir,
  thrown,
  writeInputs,
  type Tables,
  type TypeOverrides,
  PINNED_NOW,
} from './helpers/fixtures.ts';
import { UserError } from '../core/errors.ts';
import { resolveBuildConfig } from '../build/config.ts';

async function failure(tables: Tables, overrides?: TypeOverrides): Promise<UserError> {
  try {
    await build(tables, { overrides });
  } catch (error) {
    assert.instance(error, UserError);
    assert.is((error as UserError).exitCode, 1);
    return error as UserError;
  }
  throw new Error('the build was expected to fail');
}

async function expectViolation(tables: Tables, ...fragments: string[]) {
  const error = await failure(tables);
  for (const fragment of fragments) assert.ok(error.message.includes(fragment), `"${fragment}" missing from:\n${error.message}`);
}

const row = balance({ address: A, block_number: 1, balance: '5' });

test('address not 0x + 40 hex digits: file, column, row count and value', async () => {
  await expectViolation(
    { balances: [row, { ...row, address: '0x123' }, { ...row, address: 'nothex' }] },
    'balances.parquet: column "address": 2 rows with a value that is not 0x followed by 40 hex digits (column type VARCHAR)',
    'e.g. "0x123"',
  );
});

test('sub-account and owner addresses, points addresses', async () => {
  await expectViolation(
    { venue_b_accounts: [{ chain_id: 1, account: 'bad', owner: A }] },
    'venue_b_accounts.parquet: column "account": 1 row',
    '"bad"',
  );
  await expectViolation(
    { venue_b_accounts: [{ chain_id: 1, account: SUB, owner: '0xZZ' }] },
    'venue_b_accounts.parquet: column "owner": 1 row',
    '"0xZZ"',
  );
  await expectViolation(
    { seasons: [{ season: 1, as_of: null }], points: [{ season: 1, date: '2025-01-01', address: 'x', points: 1 }] },
    'points.parquet: column "address": 1 row',
    '"x"',
  );
});

test('token not one of the seven keys', async () => {
  await expectViolation(
    { balances: [{ ...row, token: 'usdt' }] },
    'balances.parquet: column "token": 1 row with a value that is not one of the token keys',
    '"usdt"',
  );
  await expectViolation({ tokens: [{ chain_id: 1, token: 'UTY', decimals: 18 }] }, 'tokens.parquet: column "token"', '"UTY"');
  await expectViolation(
    { prices: [{ chain_id: 1, token: 'eth', date: '2025-01-01', usd_price: 1 }] },
    'prices.parquet: column "token"',
    '"eth"',
  );
});

test('a (chain_id, token) of balances or prices missing from tokens', async () => {
  await expectViolation(
    { balances: [{ ...row, chain_id: 999 }] },
    'balances.parquet: column "token": 1 row with a (chain_id, token) that has no row in tokens.parquet',
    'chain 999 token uty',
  );
  await expectViolation(
    { prices: [{ chain_id: 5, token: 'uty', date: '2025-01-01', usd_price: 1 }] },
    'prices.parquet: column "token"',
    'chain 5 token uty',
  );
});

test('balance negative, fractional, 10^38 or more, empty', async () => {
  await expectViolation(
    { balances: [{ ...row, balance: '-5' }] },
    'balances.parquet: column "balance": 1 row with a value that is not a non-negative integer below 10^38',
    '"-5"',
  );
  await expectViolation({ balances: [{ ...row, balance: '1.5' }] }, 'column "balance"', '"1.5"');
  await expectViolation({ balances: [{ ...row, balance: `1${'0'.repeat(38)}` }] }, 'column "balance"', `"1${'0'.repeat(38)}"`);
  await expectViolation({ balances: [{ ...row, balance: '' }] }, 'column "balance"', '""');
});

test('balance as DECIMAL(38,0) is read exactly; as DOUBLE it is refused by type', async () => {
  const built = await build(
    { balances: [{ ...row, balance: '12345678901234567890123456789012345678' }] },
    { overrides: { balances: { balance: 'DECIMAL(38,0)' } } },
  );
  assert.match(
    fs.readFileSync(path.join(built.out, `v1/address/${A}/portfolio.json`), 'utf8'),
    '"balance":12345678901234567890.123456789012345678}',
  );
  const error = await failure({ balances: [row] }, { balances: { balance: 'DOUBLE' } });
  assert.match(
    error.message,
    'balances.parquet: column "balance": 1 row with a value that is not a non-negative integer below 10^38 (raw token units) (column type DOUBLE), e.g. "5.0"',
  );
});

test('empty tables and all-null nullable columns are valid whatever their column types', async () => {
  const built = await build(
    { seasons: [{ season: 1, as_of: null }] },
    {
      allowEmpty: true,
      overrides: {
        venue_b_accounts: { account: 'INTEGER', owner: 'INTEGER' },
        points: { date: 'INTEGER', address: 'INTEGER' },
        seasons: { as_of: 'INTEGER' },
      },
    },
  );
  assert.is(built.json('v1/leaderboard/s1.json').asOf, null);
  const error = await failure({ seasons: [{ season: 1, as_of: 20251105 }] }, { seasons: { as_of: 'INTEGER' } });
  assert.match(
    error.message,
    'seasons.parquet: column "as_of": 1 row with a value that is not a real date (DATE or YYYY-MM-DD text) or null (column type INTEGER), e.g. "20251105"',
  );
});

test('decimals outside 0..36', async () => {
  await expectViolation(
    { tokens: [{ chain_id: 1, token: 'uty', decimals: 37 }] },
    'tokens.parquet: column "decimals": 1 row with a value that is not an integer from 0 to 36',
    '"37"',
  );
});

test('usd_price negative or not finite; points not finite', async () => {
  await expectViolation(
    { prices: [{ chain_id: 1, token: 'uty', date: '2025-01-01', usd_price: -1 }] },
    'prices.parquet: column "usd_price": 1 row',
    '"-1.0"',
  );
  await expectViolation(
    { prices: [{ chain_id: 1, token: 'uty', date: '2025-01-01', usd_price: new RawSql("'nan'::DOUBLE") }] },
    'prices.parquet: column "usd_price"',
  );
  await expectViolation(
    { seasons: [{ season: 1, as_of: null }], points: [{ season: 1, date: '2025-01-01', address: A, points: new RawSql("'inf'::DOUBLE") }] },
    'points.parquet: column "points": 1 row with a value that is not a finite number',
    '"inf"',
  );
});

test('first_day after last_day', async () => {
  await expectViolation(
    {
      seasons: [{ season: 1, as_of: null }],
      multipliers: [{ season: 1, position: 'hold_uty', multiplier: 1, first_day: '2025-02-01', last_day: '2025-01-01' }],
    },
    'multipliers.parquet: column "last_day": 1 row with a window that ends before it starts',
    'hold_uty 2025-02-01 > 2025-01-01',
  );
});

test('a balances key repeated with a different balance; identical repeats are merged', async () => {
  await expectViolation(
    { balances: [row, { ...row, balance: '6' }] },
    'balances.parquet: column "balance": 2 rows with a key (chain_id, block_number, log_index, address, token) repeated with a different balance',
    `1, 1, 0, ${A}, uty`,
  );
  const built = await build({ balances: [row, { ...row }, { ...row, address: A.toUpperCase().replace('0X', '0x') }] });
  assert.is(built.json(`v1/address/${A}/portfolio.json`)['1'].uty.length, 1);
});

test('venue B: two owners for one account; an owner that is itself a sub-account; identical repeats merged', async () => {
  await expectViolation(
    {
      venue_b_accounts: [
        { chain_id: 1, account: SUB, owner: A },
        { chain_id: 1, account: SUB, owner: B },
      ],
    },
    'venue_b_accounts.parquet: column "owner": 2 rows with a sub-account given more than one owner',
    `account ${SUB} on chain 1`,
  );
  await expectViolation(
    {
      venue_b_accounts: [
        { chain_id: 1, account: SUB, owner: A },
        { chain_id: 1, account: A, owner: B },
      ],
    },
    'venue_b_accounts.parquet: column "owner": 1 row with an owner that is itself a sub-account',
    `owner ${A} on chain 1`,
  );
  const built = await build({
    balances: [balance({ address: SUB, block_number: 1, balance: '5' })],
    venue_b_accounts: [
      { chain_id: 1, account: SUB, owner: A },
      { chain_id: 1, account: SUB, owner: A },
      { chain_id: 10, account: SUB, owner: B },
    ],
  });
  assert.ok(built.exists(`v1/address/${A}/portfolio.json`));
});

test('prices: two prices for one day are refused, identical repeats merged', async () => {
  const price = { chain_id: 1, token: 'uty', date: '2025-01-01', usd_price: 1 };
  await expectViolation(
    { prices: [price, { ...price, usd_price: 2 }] },
    'prices.parquet: column "usd_price": 2 rows with a (chain_id, token, date) given more than one price',
    'chain 1 token uty on 2025-01-01: 1.0 and 2.0',
  );
  await build({ prices: [price, { ...price }] }, { allowEmpty: true });
});

test('seasons: unknown in points or multipliers, repeated, below 1', async () => {
  await expectViolation(
    { points: [{ season: 2, date: '2025-01-01', address: A, points: 1 }] },
    'points.parquet: column "season": 1 row with a season that has no row in seasons.parquet',
    'e.g. 2',
  );
  await expectViolation(
    { multipliers: [{ season: 7, position: 'p', multiplier: 1, first_day: '2025-01-01', last_day: '2025-01-01' }] },
    'multipliers.parquet: column "season": 1 row',
    'e.g. 7',
  );
  await expectViolation(
    {
      seasons: [
        { season: 1, as_of: null },
        { season: 1, as_of: '2025-01-01' },
      ],
    },
    'seasons.parquet: column "season": 2 rows with a season that is repeated',
  );
  await expectViolation(
    { seasons: [{ season: 0, as_of: null }] },
    'seasons.parquet: column "season": 1 row with a value that is not a season number >= 1',
    '"0"',
  );
});

test('nulls in required columns; dates as text must be YYYY-MM-DD', async () => {
  await expectViolation({ balances: [{ ...row, tx_hash: null }] }, 'balances.parquet: column "tx_hash": 1 row', 'e.g. "null"');
  const error = await failure({ seasons: [{ season: 1, as_of: '2025-1-5' }] }, { seasons: { as_of: 'VARCHAR' } });
  assert.match(error.message, 'seasons.parquet: column "as_of": 1 row with a value that is not a real date');
  assert.match(error.message, '"2025-1-5"');
  const varchar = { seasons: { as_of: 'VARCHAR' } };
  const built = await build({ seasons: [{ season: 1, as_of: '2025-11-05' }] }, { allowEmpty: true, overrides: varchar });
  assert.is(built.json('v1/leaderboard/s1.json').season, 1);
});

test('all violations are reported together', async () => {
  const error = await failure({ balances: [{ ...row, address: 'x' }], tokens: [{ chain_id: 1, token: 'uty', decimals: 99 }] });
  assert.match(error.message, 'balances.parquet: column "address"');
  assert.match(error.message, 'tokens.parquet: column "decimals"');
  // The message points to the contract in the product's own docs, which every checkout has.
  assert.ok(error.message.startsWith('the input breaks the export contract (see docs/input.md):\n'), error.message);
});

test('a missing file, a missing column, an unreadable file, a bad --now, a missing input folder', async () => {
  const dir = await writeInputs(tempDir(), {});
  const run = (input: string, now = PINNED_NOW) => buildReusingThreads({ input, out: path.join(tempDir(), 'out'), now, progress: 'quiet' });
  const rejects = async (action: () => Promise<unknown>, pattern: RegExp) => {
    const error = await thrown(action);
    assert.instance(error, UserError);
    assert.match(error.message, pattern);
  };
  fs.rmSync(path.join(dir, 'points.parquet'));
  await rejects(() => run(dir), /missing input file points\.parquet/);
  await writeInputs(dir, {}, { points: { points: null } });
  await rejects(() => run(dir), /points\.parquet: missing column "points"/);
  fs.writeFileSync(path.join(dir, 'prices.parquet'), 'this is not parquet');
  await rejects(() => run(dir), /prices\.parquet: cannot be read as a Parquet file/);
  await rejects(() => run(dir, 'yesterday'), /--now "yesterday" is not an ISO 8601 instant/);
  await rejects(() => run(path.join(dir, 'nope')), /input directory .*nope does not exist/);
});

test('an input folder named with glob characters is read as named, not as a pattern', async () => {
  for (const [name, decoy] of [
    ['exports[1]', 'exports1'],
    ['exports*x', 'exportsAx'],
    ['exports?y', 'exportsBy'],
  ]) {
    const root = tempDir();
    const dir = await writeInputs(path.join(root, name), { balances: [row] });
    // As a pattern, the name matches the decoy, whose balances cannot be read.
    fs.mkdirSync(path.join(root, decoy));
    fs.writeFileSync(path.join(root, decoy, 'balances.parquet'), 'this is not parquet');
    const summary = await buildReusingThreads({ input: dir, out: path.join(root, 'out'), now: PINNED_NOW, progress: 'quiet' });
    assert.is(summary.wallets, 1, name);
    assert.is(summary.balanceRows, 1, name);
  }
});

test('the library refuses empty inputs and a distant --now unless asked, as the CLI does without its flags', async () => {
  const defaults = resolveBuildConfig({});
  assert.equal([defaults.allowEmpty, defaults.allowDistantNow], [false, false]);
  const empty = await thrown(() => build({}));
  assert.is(
    empty.message,
    'balances.parquet, venue_b_accounts.parquet, prices.parquet, points.parquet, multipliers.parquet, seasons.parquet have zero rows: ' +
      'the tree would hold no wallet and no participant, and publishing it would empty every answer; ' +
      'check the export, or give --allow-empty to build it anyway',
  );
  // The row's timestamp is in June 2025: a --now in 2030 is more than 400 days after it.
  const distant = await thrown(() => build({ balances: [row] }, { now: '2030-01-01T00:00:00Z' }));
  assert.match(distant.message, '--now "2030-01-01T00:00:00Z" is 1660 days after the latest event in the inputs');
  const asked = await build({ balances: [row] }, { now: '2030-01-01T00:00:00Z', allowDistantNow: true });
  assert.ok(asked.exists(`v1/address/${A}/portfolio.json`));
});

test.run();
