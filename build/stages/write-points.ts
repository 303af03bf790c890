/** Shard: each participant's points standing (build/write/points.ts, its rows in build/compute/points.ts). */
import { writePoints as writePointsFiles } from '../write/points.ts';
import { defineStage } from './stage.ts';

export const writePoints = defineStage({
  name: 'write points',
  side: 'shard',
  reads: ['participants', 'addresses', 'snapshots'],
  writes: [],
  needs: ['leaderboards', 'tree'],
  makes: ['points'],
  async run(context, { leaderboards, tree }) {
    const points = await writePointsFiles(context.db, tree.pool(), {
      shard: context.config.shard,
      leaderboards,
      progress: context.progress,
      signal: context.signal,
    });
    return { points };
  },
});
