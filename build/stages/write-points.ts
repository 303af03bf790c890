/** Shard: each participant's points standing (build/write/points.ts, its rows in build/compute/points.ts). */
import { writePoints as writePointsFiles } from '../write/points.ts';
import { need, treeOf, type Stage } from './stage.ts';

export const writePoints: Stage = {
  name: 'write points',
  side: 'shard',
  reads: ['participants', 'addresses', 'snapshots'],
  writes: [],
  async run(context) {
    context.values.points = await writePointsFiles(context.db, treeOf(context).pool(), {
      shard: context.config.shard,
      leaderboards: need(context, 'leaderboards'),
      progress: context.progress,
      signal: context.signal,
    });
  },
};
