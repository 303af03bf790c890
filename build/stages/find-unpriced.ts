/**
 * Shard: where the daily positions without a price are, for the build's warning
 * (build/compute/unpriced.ts); a query only when the documents counted some.
 */
import { findUnpricedPositions } from '../compute/unpriced.ts';
import { defineStage } from './stage.ts';

export const findUnpriced = defineStage({
  name: 'find unpriced positions',
  side: 'shard',
  reads: ['snapshots', 'addresses', 'prices', 'chains'],
  writes: [],
  needs: ['wallets'],
  makes: ['unpriced'],
  // Skipped when the documents wrote no position without a price (the common night).
  when: (context) => (context.values.wallets?.positionsWithoutPrice ?? 0) > 0,
  async run(context, { wallets }) {
    const unpriced = await findUnpricedPositions(context.db, context.config.lastClosedDay, context.config.shard);
    // Two rules of docs/semantics.md#daily-portfolio that must agree, one in SQL here and one in the documents' assembly:
    // a difference is a bug of one of them, found before the tree goes live.
    const found = unpriced.reduce((sum, series) => sum + series.positions, 0);
    const written = wallets.positionsWithoutPrice;
    if (found !== written)
      throw new Error(
        `the positions without a price found by SQL (${found}) are not those the documents wrote with usdPerToken 0 (${written})`,
      );
    return { unpriced };
  },
});
