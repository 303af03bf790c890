/** Shard: the carried-forward prices of every chain and token, held for the document threads (build/compute/daily.ts). */
import { loadPriceBook } from '../compute/daily.ts';
import { defineStage } from './stage.ts';

export const loadPrices = defineStage({
  name: 'load prices',
  side: 'shard',
  reads: ['prices'],
  writes: [],
  needs: [],
  makes: ['prices'],
  async run(context) {
    return { prices: await loadPriceBook(context.db, context.config.lastClosedDay) };
  },
});
