/**
 * Shard, whole build only: the daily `asOf` and the example wallet read off the snapshots of every
 * wallet (build/compute/export-facts.ts). A night split among shards finds them on its own side
 * instead (probe-export-facts.ts), as no shard holds every wallet's snapshots.
 */
import { factsOfSnapshots } from '../compute/export-facts.ts';
import { defineStage, isSharded } from './stage.ts';

export const readExportFacts = defineStage({
  name: 'read export facts',
  side: 'shard',
  reads: ['snapshots', 'addresses', 'venue_b_accounts'],
  writes: [],
  needs: [],
  makes: ['dailyAsOf', 'exampleWallet'],
  when: (context) => !isSharded(context),
  async run(context) {
    const facts = await factsOfSnapshots(context.db, 'snapshots', context.config.lastClosedDay);
    return { dailyAsOf: facts.dailyAsOf, exampleWallet: facts.exampleWallet };
  },
});
