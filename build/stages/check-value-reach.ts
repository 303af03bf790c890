/**
 * Night: wallets whose values could reach beyond the largest JSON number, refused for every wallet
 * of the export (build/compute/value-reach.ts). An incremental night decides it by the bound that
 * needs no balance row (every real export); an export the bound does not settle makes it whole.
 */
import { checkValueReach as check } from '../compute/value-reach.ts';
import { defineStage, fullNightNeeded } from './stage.ts';

export const checkValueReach = defineStage({
  name: 'check value reach',
  side: 'night',
  reads: ['tokens', 'prices', 'venue_b_accounts', 'every_balance_row', 'addresses'],
  writes: [],
  needs: ['resume'],
  makes: [],
  async run(context, { resume }) {
    if (!(await check(context.db, context.config.nowSeconds, resume === null)))
      return fullNightNeeded('prices whose bound on the values needs every balance row');
    return {};
  },
});
