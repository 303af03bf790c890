/** Night: wallets whose values could reach beyond the largest JSON number, refused for every wallet of the export (build/compute/value-reach.ts). */
import { checkValueReach as check } from '../compute/value-reach.ts';
import type { Stage } from './stage.ts';

export const checkValueReach: Stage = {
  name: 'check value reach',
  side: 'night',
  reads: ['tokens', 'prices', 'venue_b_accounts', 'every_balance_row', 'addresses'],
  writes: [],
  async run(context) {
    await check(context.db, context.config.nowSeconds);
  },
};
