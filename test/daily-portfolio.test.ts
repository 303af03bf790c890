/** Daily portfolio: GET /v1/address/{address}/portfolio/daily (now pinned: L = 2025-11-20). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { A, B, C, balance, build, thrown, unix } from './helpers/fixtures.ts';
import { UserError } from '../core/errors.ts';
import { DailyPortfolioSchema } from '../schemas/daily-portfolio.ts';

const daily = (address: string) => `v1/address/${address}/portfolio/daily.json`;
const ny = (local: string) => unix(`${local}-05:00`);
const zeroDecimals = [1, 10].flatMap((chain_id) => ['uty', 'venueALp'].map((token) => ({ chain_id, token, decimals: 0 })));

test('every closed day from the first snapshot to L, end-of-day balances, carried-forward prices', async () => {
  const built = await build({
    balances: [
      balance({ address: A, block_number: 1, timestamp: ny('2025-11-17T10:00:00'), balance: '10' }),
      balance({ address: A, block_number: 2, chain_id: 10, token: 'venueALp', timestamp: ny('2025-11-18T12:00:00'), balance: '2' }),
      balance({ address: A, block_number: 3, timestamp: ny('2025-11-19T09:00:00'), balance: '4' }),
      balance({ address: A, block_number: 4, timestamp: ny('2025-11-19T20:00:00'), balance: '6' }),
    ],
    prices: [
      { chain_id: 1, token: 'uty', date: '2025-11-16', usd_price: 1.5 },
      { chain_id: 1, token: 'uty', date: '2025-11-19', usd_price: 2 },
      { chain_id: 1, token: 'uty', date: '2025-11-21', usd_price: 99 },
    ],
    tokens: zeroDecimals,
  });
  const uty = (balance: number, usdPerToken: number) => ({
    token: 'uty',
    chainId: 1,
    balance,
    usdPerToken,
    valueUsd: balance * usdPerToken,
  });
  const lp = { token: 'venueALp', chainId: 10, balance: 2, usdPerToken: 0, valueUsd: 0 };
  assert.equal(built.json(daily(A)), {
    asOf: '2025-11-20',
    days: [
      { date: '2025-11-17', totalValueUsd: 15, positions: [uty(10, 1.5)] },
      { date: '2025-11-18', totalValueUsd: 15, positions: [uty(10, 1.5), lp] },
      { date: '2025-11-19', totalValueUsd: 12, positions: [uty(6, 2), lp] },
      { date: '2025-11-20', totalValueUsd: 12, positions: [uty(6, 2), lp] },
    ],
  });
  assert.is(built.summary.dailyPositionsWithoutPrice, 3);
  assert.ok(built.summary.warnings.some((warning) => warning.startsWith('3 daily positions had no price')));
});

test('days when everything is zero are still rows, with no positions and total 0', async () => {
  const built = await build({
    balances: [
      balance({ address: B, block_number: 1, timestamp: ny('2025-11-18T12:00:00'), balance: '5' }),
      balance({ address: B, block_number: 2, timestamp: ny('2025-11-19T12:00:00'), balance: '0' }),
    ],
    prices: [{ chain_id: 1, token: 'uty', date: '2025-11-01', usd_price: 2 }],
    tokens: zeroDecimals,
  });
  assert.equal(built.json(daily(B)).days, [
    { date: '2025-11-18', totalValueUsd: 10, positions: [{ token: 'uty', chainId: 1, balance: 5, usdPerToken: 2, valueUsd: 10 }] },
    { date: '2025-11-19', totalValueUsd: 0, positions: [] },
    { date: '2025-11-20', totalValueUsd: 0, positions: [] },
  ]);
});

test('positions are ordered by chainId, then token key order; the total is their left-to-right sum', async () => {
  const built = await build({
    balances: [
      balance({ address: A, block_number: 1, chain_id: 10, token: 'uty', timestamp: ny('2025-11-20T01:00:00'), balance: '1' }),
      balance({ address: A, block_number: 2, chain_id: 1, token: 'venueALp', timestamp: ny('2025-11-20T02:00:00'), balance: '1' }),
      balance({ address: A, block_number: 3, chain_id: 1, token: 'uty', timestamp: ny('2025-11-20T03:00:00'), balance: '1' }),
    ],
    prices: [
      { chain_id: 1, token: 'uty', date: '2025-11-20', usd_price: 0.1 },
      { chain_id: 1, token: 'venueALp', date: '2025-11-20', usd_price: 0.2 },
      { chain_id: 10, token: 'uty', date: '2025-11-20', usd_price: 0.3 },
    ],
    tokens: zeroDecimals,
  });
  const [day] = built.json(daily(A)).days;
  assert.equal(
    day.positions.map((p: any) => [p.chainId, p.token]),
    [
      [1, 'uty'],
      [1, 'venueALp'],
      [10, 'uty'],
    ],
  );
  assert.is(day.totalValueUsd, 0.1 + 0.2 + 0.3);
});

test('end-of-day values follow New York days across the fall-back DST change', async () => {
  const built = await build(
    {
      balances: [
        balance({ address: A, block_number: 1, timestamp: unix('2025-11-01T23:30:00-04:00'), balance: '1' }),
        balance({ address: A, block_number: 2, timestamp: unix('2025-11-02T00:30:00-04:00'), balance: '2' }),
        balance({ address: A, block_number: 3, timestamp: unix('2025-11-02T23:30:00-05:00'), balance: '3' }),
        balance({ address: A, block_number: 4, timestamp: unix('2025-11-03T00:30:00-05:00'), balance: '4' }),
      ],
      tokens: zeroDecimals,
    },
    { now: '2025-11-03T12:00:00-05:00' },
  );
  assert.equal(
    built.json(daily(A)).days.map((d: any) => [d.date, d.positions[0].balance]),
    [
      ['2025-11-01', 1],
      ['2025-11-02', 3],
    ],
  );
});

test('the spring-forward day: 23:30 and 00:30 local land on the right days', async () => {
  const built = await build(
    {
      balances: [
        balance({ address: A, block_number: 1, timestamp: unix('2025-03-08T23:30:00-05:00'), balance: '1' }),
        balance({ address: A, block_number: 2, timestamp: unix('2025-03-09T00:30:00-05:00'), balance: '2' }),
        balance({ address: A, block_number: 3, timestamp: unix('2025-03-09T23:30:00-04:00'), balance: '3' }),
        balance({ address: A, block_number: 4, timestamp: unix('2025-03-10T00:30:00-04:00'), balance: '4' }),
      ],
      tokens: zeroDecimals,
    },
    { now: '2025-03-10T12:00:00-04:00' },
  );
  assert.equal(
    built.json(daily(A)).days.map((d: any) => [d.date, d.positions[0].balance]),
    [
      ['2025-03-08', 1],
      ['2025-03-09', 3],
    ],
  );
});

test('asOf is L for every wallet; a wallet whose history starts today has no rows yet', async () => {
  const built = await build({
    balances: [
      balance({ address: A, block_number: 1, timestamp: ny('2025-11-20T12:00:00'), balance: '1' }),
      balance({ address: B, block_number: 2, timestamp: ny('2025-11-21T08:00:00'), balance: '1' }),
    ],
    tokens: zeroDecimals,
  });
  assert.equal(built.json(daily(B)), { asOf: '2025-11-20', days: [] });
  assert.is(built.json(daily(A)).asOf, '2025-11-20');
  assert.equal(built.json('_snapshot/no-history/daily.json'), { asOf: '2025-11-20', days: [] });
  assert.equal(built.json(`v1/address/${B}/portfolio.json`)['1'].uty.length, 1);
});

test('asOf is null when no wallet has a closed day', async () => {
  const built = await build({
    balances: [balance({ address: C, block_number: 1, timestamp: ny('2025-11-21T08:00:00'), balance: '1' })],
    tokens: zeroDecimals,
  });
  assert.equal(built.json(daily(C)), { asOf: null, days: [] });
  assert.equal(built.json('_snapshot/no-history/daily.json'), { asOf: null, days: [] });
  assert.is(built.summary.dailyAsOf, null);
});

test('no input at all: null asOf and an empty tree of wallets', async () => {
  const built = await build({}, { allowEmpty: true });
  assert.equal(built.json('_snapshot/no-history/daily.json'), { asOf: null, days: [] });
  assert.equal(built.json('_snapshot/no-history/portfolio.json'), {});
  assert.is(built.summary.wallets, 0);
});

test('balances keep every digit while valueUsd is the double product; documents match the schema', async () => {
  const built = await build({
    balances: [balance({ address: A, block_number: 1, timestamp: ny('2025-11-20T12:00:00'), balance: '123456789012345678901234' })],
    prices: [{ chain_id: 1, token: 'uty', date: '2025-11-20', usd_price: 1.1 }],
  });
  const document = built.json(daily(A));
  DailyPortfolioSchema.parse(document);
  assert.is(document.days[0].positions[0].valueUsd, 123456.789012345678901234 * 1.1);
});

test('a later transaction dated earlier decides every end of day from its date on', async () => {
  // Block 2 carries an earlier timestamp than block 1: on 11-19 both are dated on or before the
  // day, and the later transaction (block 2) holds the balance, not the later date (block 1).
  const built = await build({
    balances: [
      balance({ address: A, block_number: 1, timestamp: ny('2025-11-19T10:00:00'), balance: '5' }),
      balance({ address: A, block_number: 2, timestamp: ny('2025-11-17T10:00:00'), balance: '7' }),
      balance({ address: A, block_number: 3, timestamp: ny('2025-11-20T10:00:00'), balance: '9' }),
    ],
    prices: [{ chain_id: 1, token: 'uty', date: '2025-11-01', usd_price: 2 }],
    tokens: zeroDecimals,
  });
  assert.equal(
    built.json(daily(A)).days.map((day: any) => [day.date, day.positions[0].balance, day.totalValueUsd]),
    [
      ['2025-11-17', 7, 14],
      ['2025-11-18', 7, 14],
      ['2025-11-19', 7, 14],
      ['2025-11-20', 9, 18],
    ],
  );
});

test('a value that can reach beyond the largest double fails the build, naming the wallet, the balance and the price', async () => {
  try {
    await build({
      balances: [balance({ address: A, block_number: 1, timestamp: ny('2025-11-19T10:00:00'), balance: '9'.repeat(37) })],
      prices: [{ chain_id: 1, token: 'uty', date: '2025-11-19', usd_price: 1e300 }],
      tokens: zeroDecimals,
    });
    assert.unreachable('the build succeeded');
  } catch (error) {
    assert.instance(error, UserError);
    assert.is(
      (error as UserError).message,
      `prices.parquet: column "usd_price": 1 wallet whose balances times their prices can reach beyond the largest JSON number, e.g. ${A}: up to 1e+37 raw uty on chain 1 (0 decimals) at up to 1e+300 USD`,
    );
  }
});

test('finite values that can add up beyond the largest double fail the build; a price of 1e290 on a balance of 1 is built', async () => {
  const error = await thrown(() =>
    build({
      balances: [
        balance({ address: A, block_number: 1, timestamp: ny('2025-11-19T10:00:00'), balance: '1' }),
        balance({ address: A, block_number: 2, timestamp: ny('2025-11-19T11:00:00'), token: 'venueALp', balance: '1' }),
      ],
      prices: [
        { chain_id: 1, token: 'uty', date: '2025-11-19', usd_price: 1e308 },
        { chain_id: 1, token: 'venueALp', date: '2025-11-19', usd_price: 1e308 },
      ],
      tokens: zeroDecimals,
    }),
  );
  assert.instance(error, UserError);
  assert.is(
    error.message,
    `prices.parquet: column "usd_price": 1 wallet whose balances times their prices can reach beyond the largest JSON number, e.g. ${A}: up to 1 raw uty on chain 1 (0 decimals) at up to 1e+308 USD`,
  );
  // Every balance below 10^38 times 1e290 could overflow, but this wallet's 1 raw cannot.
  const built = await build({
    balances: [balance({ address: A, block_number: 1, timestamp: ny('2025-11-19T10:00:00'), balance: '1' })],
    prices: [{ chain_id: 1, token: 'uty', date: '2025-11-19', usd_price: 1e290 }],
    tokens: zeroDecimals,
  });
  assert.is(built.json(daily(A)).days.at(-1).totalValueUsd, 1e290);
});

test.run();
