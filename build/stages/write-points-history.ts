/** Shard: each participant's points history, from the rows the night ranked (build/write/points-history.ts). */
import { writePointsHistory as writePointsHistoryFiles } from '../write/points-history.ts';
import { need, treeOf, type Stage } from './stage.ts';

export const writePointsHistory: Stage = {
  name: 'write points history',
  side: 'shard',
  reads: ['points_history_wallets', 'points_history_days', 'participants'],
  writes: [],
  async run(context) {
    context.values.pointsHistory = await writePointsHistoryFiles(context.db, treeOf(context).pool(), {
      shard: context.config.shard,
      leaderboards: need(context, 'leaderboards'),
      progress: context.progress,
      signal: context.signal,
    });
  },
};
