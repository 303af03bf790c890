/**
 * The warning about positions without a price names each chain and token with the first and last
 * day it happens and how many positions, and its counts add up to the positions the documents
 * wrote with usdPerToken 0. L = 2025-11-20 (the pinned now).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { A, B, balance, build, scratchDatabase, thrown, unix } from './helpers/fixtures.ts';
import { findUnpriced } from '../build/stages/find-unpriced.ts';
import { BUILD_STAGES, PREPARED_BUILD_STAGES } from '../build/stages/index.ts';
import { seriesKeySql } from '../build/compute/series-key.ts';
import { resolveBuildConfig } from '../build/config.ts';
import type { StageContext } from '../build/stages/stage.ts';
import type { WalletWriteResult } from '../build/write/wallets.ts';

const noon = (day: string) => unix(`${day}T12:00:00-05:00`);

test("each chain and token without a price: its days and positions; the total is the documents' count", async () => {
  const built = await build({
    balances: [
      // A holds uty on chain 1 from 11-10; its first price is dated 11-13: 11-10, 11-11, 11-12 have none.
      balance({ address: A, block_number: 1, balance: '5', timestamp: noon('2025-11-10') }),
      // ... and more from 11-14, priced: a snapshot after the first price adds no unpriced day.
      balance({ address: A, block_number: 6, balance: '6', timestamp: noon('2025-11-14') }),
      // B holds venueALp on chain 10 from 11-15, sells all on 11-17 and buys on 11-19: never priced.
      balance({ address: B, block_number: 2, balance: '7', timestamp: noon('2025-11-15'), chain_id: 10, token: 'venueALp' }),
      balance({ address: B, block_number: 3, balance: '0', timestamp: noon('2025-11-17'), chain_id: 10, token: 'venueALp' }),
      balance({ address: B, block_number: 4, balance: '2', timestamp: noon('2025-11-19'), chain_id: 10, token: 'venueALp' }),
      // Priced from its first day: no warning for it.
      balance({ address: B, block_number: 5, balance: '9', timestamp: noon('2025-11-18') }),
    ],
    prices: [
      { chain_id: 1, token: 'uty', date: '2025-11-13', usd_price: 1 },
      // A price after L is never used.
      { chain_id: 10, token: 'venueALp', date: '2025-11-21', usd_price: 3 },
    ],
  });
  // B's days 11-15, 11-16 (7), 11-19, 11-20 (2); 11-17 and 11-18 hold 0 and are no position.
  assert.equal(built.summary.warnings, [
    '7 daily positions had no price on or before their day (usdPerToken 0): chain 1 uty from 2025-11-10 to 2025-11-12 (3); chain 10 venueALp from 2025-11-15 to 2025-11-20 (4)',
  ]);
  let zeros = 0;
  for (const wallet of [A, B]) {
    for (const day of built.json(`v1/address/${wallet}/portfolio/daily.json`).days)
      zeros += day.positions.filter((p: { usdPerToken: number }) => p.usdPerToken === 0).length;
  }
  assert.is(zeros, 7);
  assert.is(built.summary.dailyPositionsWithoutPrice, 7);
});

test('every build compares the two counts, also one whose documents counted no position without a price', async () => {
  assert.ok(BUILD_STAGES.stages.includes(findUnpriced) && PREPARED_BUILD_STAGES.stages.includes(findUnpriced));
  const built = await build({
    balances: [balance({ address: A, block_number: 1, balance: '5', timestamp: noon('2025-11-10') })],
    prices: [{ chain_id: 1, token: 'uty', date: '2025-11-01', usd_price: 0 }],
  });
  // A price of 0 is a price: no warning, and the comparison ran (0 and 0).
  assert.equal(built.summary.warnings, []);
  assert.is(built.summary.dailyPositionsWithoutPrice, 0);
  assert.ok('find unpriced positions' in built.summary.stageSeconds, Object.keys(built.summary.stageSeconds).join(', '));
});

test("a writer that stops seeing missing prices is caught: SQL's count against the documents' 0", async () => {
  const db = await scratchDatabase({ threads: 1 });
  try {
    // One wallet holding uty on chain 1 from 2025-11-18 (day 20410), no price at all: 3 days without one up to L.
    await db.run(`
      CREATE TABLE chains AS SELECT 1::BIGINT AS chain_id, 0 AS chain_index, '1' AS chain_text;
      CREATE TABLE addresses AS SELECT '${A}' AS address, 1 AS id;
      CREATE TABLE prices (chain_id BIGINT, token VARCHAR, date DATE, usd_price DOUBLE);
      CREATE TABLE snapshots AS SELECT ${seriesKeySql('1', '0', '0')} AS series, 1 AS number, 1763485200 AS ts, 20410 AS day, 5::HUGEINT AS raw_balance`);
    const context = { db, config: resolveBuildConfig({ now: '2025-11-21T17:00:00Z', progress: 'quiet' }) } as unknown as StageContext;
    const wallets = { positionsWithoutPrice: 0 } as WalletWriteResult;
    const error = await thrown(() => findUnpriced.run(context, { wallets }));
    assert.is(error.message, 'the positions without a price found by SQL (3) are not those the documents wrote with usdPerToken 0 (0)');
    assert.equal((await findUnpriced.run(context, { wallets: { ...wallets, positionsWithoutPrice: 3 } })).unpriced, [
      { chainId: '1', token: 'uty', positions: 3, firstDay: '2025-11-18', lastDay: '2025-11-20' },
    ]);
  } finally {
    db.close();
  }
});

test.run();
