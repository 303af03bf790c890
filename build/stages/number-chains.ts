/** Night: dense chain indexes in chain ID order, for the series keys (build/compute/history.ts). */
import { numberChains as numberChainsOf } from '../compute/history.ts';
import type { Stage } from './stage.ts';

export const numberChains: Stage = {
  name: 'number chains',
  side: 'night',
  reads: ['tokens'],
  writes: ['chains'],
  async run(context) {
    await numberChainsOf(context.db);
  },
};
