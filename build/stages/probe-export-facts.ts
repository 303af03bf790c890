/**
 * Night, split among shards: the daily `asOf` and the example wallet of the whole export, found by
 * running the history rule on candidate wallets (build/compute/export-facts.ts). A whole build
 * reads them off its snapshots instead (read-export-facts.ts).
 */
import { probeExportFacts as probe } from '../compute/export-facts.ts';
import { defineStage, isSharded } from './stage.ts';

export const probeExportFacts = defineStage({
  name: 'probe export facts',
  side: 'night',
  reads: ['balance_written', 'balance_rows', 'balance_address_ids', 'venue_b_accounts', 'addresses', 'chains'],
  writes: [],
  needs: [],
  makes: ['dailyAsOf', 'exampleWallet'],
  when: isSharded,
  async run(context) {
    // prepare loads every balance row (for the shards' folders); `build --shard` only its own.
    const rowsFrom = context.config.shard === null ? 'balance_rows' : 'export';
    const facts = await probe(context.db, context.config.nowSeconds, context.config.lastClosedDay, rowsFrom);
    return { dailyAsOf: facts.dailyAsOf, exampleWallet: facts.exampleWallet };
  },
});
