/**
 * Night, split among shards: a wallet's summed balance beyond 2^127 - 1 refused for every wallet,
 * as the whole build refuses it while computing every wallet's snapshots (build/compute/history.ts).
 */
import { checkSummedBalances as check } from '../compute/history.ts';
import { balanceRowsOfWalletsSql } from '../input/load.ts';
import { defineStage, isSharded } from './stage.ts';

export const checkSummedBalances = defineStage({
  name: 'check summed balances',
  side: 'night',
  reads: ['every_balance_row', 'venue_b_accounts', 'balance_written', 'balance_address_ids', 'chains'],
  writes: [],
  needs: [],
  makes: [],
  when: isSharded,
  async run(context) {
    await check(context.db, context.config.nowSeconds, balanceRowsOfWalletsSql);
    return {};
  },
});
