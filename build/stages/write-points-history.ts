/** Shard: each participant's points history, from the rows the night ranked (build/write/points-history.ts). */
import { writePointsHistory as writePointsHistoryFiles } from '../write/points-history.ts';
import { defineStage } from './stage.ts';

export const writePointsHistory = defineStage({
  name: 'write points history',
  side: 'shard',
  reads: ['points_history_wallets', 'points_history_days', 'participants'],
  writes: [],
  needs: ['leaderboards', 'tree'],
  makes: ['pointsHistory'],
  async run(context, { leaderboards, tree }) {
    const pointsHistory = await writePointsHistoryFiles(context.db, tree.pool(), {
      shard: context.config.shard,
      leaderboards,
      progress: context.progress,
      signal: context.signal,
    });
    return { pointsHistory };
  },
});
