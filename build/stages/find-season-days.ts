/** Night: each season's day A, which the points histories and the leaderboards count up to (build/compute/leaderboards.ts). */
import { computeSeasonDays } from '../compute/leaderboards.ts';
import type { Stage } from './stage.ts';

export const findSeasonDays: Stage = {
  name: 'find season days',
  side: 'night',
  reads: ['seasons', 'points'],
  writes: ['season_days'],
  async run(context) {
    await computeSeasonDays(context.db, context.config.lastClosedDay);
  },
};
