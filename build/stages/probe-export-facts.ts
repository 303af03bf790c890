/**
 * Night: the daily `asOf` and the example wallet of the whole export, found by running the history
 * rule on candidate wallets (build/compute/export-facts.ts), on the night's side of every build,
 * so that a shard's side, which holds its own wallets only, is handed them like every other fact
 * of the night.
 */
import { probeExportFacts as probe } from '../compute/export-facts.ts';
import { defineStage } from './stage.ts';
import { nightBalanceRows } from './load-inputs.ts';

export const probeExportFacts = defineStage({
  name: 'probe export facts',
  side: 'night',
  reads: ['balance_written', 'balance_rows', 'every_balance_row', 'balance_address_ids', 'venue_b_accounts', 'addresses', 'chains'],
  writes: [],
  needs: ['resume'],
  makes: ['dailyAsOf', 'exampleWallet'],
  async run(context, { resume }) {
    const facts = await probe(context.db, context.config.nowSeconds, context.config.lastClosedDay, await nightBalanceRows(context, resume));
    return { dailyAsOf: facts.dailyAsOf, exampleWallet: facts.exampleWallet };
  },
});
