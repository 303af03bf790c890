/** Shard: the carried-forward prices of every chain and token, held for the document threads (build/compute/daily.ts). */
import { loadPriceBook } from '../compute/daily.ts';
import type { Stage } from './stage.ts';

export const loadPrices: Stage = {
  name: 'load prices',
  side: 'shard',
  reads: ['prices'],
  writes: [],
  async run(context) {
    context.values.prices = await loadPriceBook(context.db, context.config.lastClosedDay);
  },
};
