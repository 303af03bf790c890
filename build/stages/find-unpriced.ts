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
    context.values.unpriced = await findUnpricedPositions(context.db, context.config.lastClosedDay, context.config.shard);
  },
};
