/**
 * Shard: where the daily positions without a price are, for the build's warning
 * (build/compute/unpriced.ts), and the check that the documents counted the same positions. It
 * runs on every build, whatever the documents counted: a writer that stopped seeing missing
 * prices would count none, and the check is what finds it.
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
  async run(context, { wallets }) {
    const unpriced = await findUnpricedPositions(context.db, context.config.lastClosedDay, context.config.shard);
    // One rule (core/position-value.ts) in two languages, SQL here and the documents' WebAssembly:
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
