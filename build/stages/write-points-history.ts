/** Shard: each participant's points history, from the rows the night ranked (build/write/points-history.ts). */
import { writePointsHistory as writePointsHistoryFiles } from '../write/points-history.ts';
import { defineStage, treeOf } from './stage.ts';

export const writePointsHistory = defineStage({
  name: 'write points history',
  side: 'shard',
  reads: ['points_history_wallets', 'points_history_days', 'participants'],
  writes: [],
  needs: ['leaderboards'],
  makes: ['pointsHistory'],
  async run(context, { leaderboards }) {
    const pointsHistory = await writePointsHistoryFiles(context.db, treeOf(context).pool(), {
      shard: context.config.shard,
      leaderboards,
      progress: context.progress,
      signal: context.signal,
    });
    return { pointsHistory };
  },
});
