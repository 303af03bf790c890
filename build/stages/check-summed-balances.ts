/**
 * Night: a wallet's summed balance beyond 2^127 - 1 refused for every wallet of the export, before
 * any shard's side runs, as a shard holds only its own wallets' rows (the same check of
 * build/compute/history.ts also runs as the snapshots are computed). An incremental night reads
 * the earlier rows of the accounts with sub-accounts (or of them) from the previous night's shard
 * folders, cut to those accounts first.
 */
import { checkSummedBalances as check } from '../compute/history.ts';
import { balanceRowsOfWalletsSql, largestAccountBalancesSql } from '../input/load.ts';
import { defineStage } from './stage.ts';
import { nightBalanceRows } from './load-inputs.ts';

export const checkSummedBalances = defineStage({
  name: 'check summed balances',
  side: 'night',
  reads: ['every_balance_row', 'balance_rows', 'addresses', 'venue_b_accounts', 'balance_written', 'balance_address_ids', 'chains'],
  writes: [],
  needs: ['resume'],
  makes: [],
  async run(context, { resume }) {
    const rows = await nightBalanceRows(context, resume);
    await check(
      context.db,
      context.config.nowSeconds,
      // A full night reads the few wallets at risk from the export, their rows cut by address as written.
      (walletIds) => balanceRowsOfWalletsSql(walletIds, typeof rows === 'object' ? rows : 'export'),
      (where, accounts) => largestAccountBalancesSql(where, typeof rows === 'object' ? rows : null, accounts),
    );
    return {};
  },
});
