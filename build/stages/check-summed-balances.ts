/**
 * Night: a wallet's summed balance beyond 2^127 - 1 refused for every wallet of the export, before
 * any shard's side runs, as a shard holds only its own wallets' rows (the same check of
 * build/compute/history.ts also runs as the snapshots are computed). An incremental night reads
 * the wallets' earlier rows from the previous night's shard folders (`every_balance_row`).
 */
import { checkSummedBalances as check } from '../compute/history.ts';
import { balanceRowsOfWalletsSql } from '../input/load.ts';
import { defineStage } from './stage.ts';

export const checkSummedBalances = defineStage({
  name: 'check summed balances',
  side: 'night',
  reads: ['every_balance_row', 'venue_b_accounts', 'balance_written', 'balance_address_ids', 'chains'],
  writes: [],
  needs: ['resume'],
  makes: [],
  async run(context, { resume }) {
    await check(context.db, context.config.nowSeconds, (walletIds) =>
      balanceRowsOfWalletsSql(walletIds, resume === null ? 'export' : 'every_balance_row'),
    );
    return {};
  },
});
