/** Night: wallets whose values could reach beyond the largest JSON number, refused for every wallet of the export (build/compute/value-reach.ts). */
import { checkValueReach as check } from '../compute/value-reach.ts';
import { defineStage } from './stage.ts';

export const checkValueReach = defineStage({
  name: 'check value reach',
  side: 'night',
  reads: ['tokens', 'prices', 'venue_b_accounts', 'every_balance_row', 'addresses'],
  writes: [],
  needs: [],
  makes: [],
  async run(context) {
    await check(context.db, context.config.nowSeconds);
    return {};
  },
});
