/**
 * Shard: where the daily positions without a price are, for the build's warning
 * (build/compute/unpriced.ts); a query only when the documents counted some.
 */
import { findUnpricedPositions } from '../compute/unpriced.ts';
import { need, type Stage } from './stage.ts';

export const findUnpriced: Stage = {
  name: 'find unpriced positions',
  side: 'shard',
  reads: ['snapshots', 'addresses', 'prices', 'chains'],
  writes: [],
  when: (context) => need(context, 'wallets').positionsWithoutPrice > 0,
  async run(context) {
    const unpriced = await findUnpricedPositions(context.db, context.config.lastClosedDay, context.config.shard);
    // Two rules of docs/semantics.md#daily-portfolio that must agree, one in SQL here and one in the documents' assembly:
    // a difference is a bug of one of them, found before the tree goes live.
    const found = unpriced.reduce((sum, series) => sum + series.positions, 0);
    const written = need(context, 'wallets').positionsWithoutPrice;
    if (found !== written) throw new Error(`the positions without a price found by SQL (${found}) are not those the documents wrote with usdPerToken 0 (${written})`);
    context.values.unpriced = unpriced;
  },
};
