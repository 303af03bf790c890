/** Night: dense chain indexes in chain ID order, for the series keys (build/compute/history.ts). */
import { numberChains as numberChainsOf } from '../compute/history.ts';
import { defineStage } from './stage.ts';

export const numberChains = defineStage({
  name: 'number chains',
  side: 'night',
  reads: ['tokens'],
  writes: ['chains'],
  needs: [],
  makes: [],
  async run(context) {
    await numberChainsOf(context.db);
    return {};
  },
});
