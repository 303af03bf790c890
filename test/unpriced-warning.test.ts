/**
 * The warning about positions without a price names each chain and token with the first and last
 * day it happens and how many positions, and its counts add up to the positions the documents
 * wrote with usdPerToken 0. L = 2025-11-20 (the pinned now).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { A, B, balance, build, unix } from './helpers/fixtures.ts';

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

test.run();
