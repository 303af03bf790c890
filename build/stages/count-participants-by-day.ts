/**
 * Night: each season's participants on each of the night summary's days, per shard (docs/reliability.md#the-nights-summary,
 * build/compute/night-summary.ts): the running totals of every wallet are the night's, so each
 * shard's counts are made here, and a shard's build only writes its own into its summary.
 */
import { participantsByDayOfShards } from '../compute/night-summary.ts';
import { defineStage } from './stage.ts';

export const countParticipantsByDay = defineStage({
  name: 'count participants by day',
  side: 'night',
  reads: ['history_totals', 'history_wallets'],
  writes: [],
  needs: [],
  makes: ['participantsByDay'],
  async run(context) {
    const shards = context.mode.kind === 'prepare' ? context.mode.shards : (context.config.shard?.count ?? 1);
    return { participantsByDay: await participantsByDayOfShards(context.db, context.config.lastClosedDay, shards) };
  },
});
