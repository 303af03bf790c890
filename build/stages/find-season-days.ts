/** Night: each season's day A, which the points histories and the leaderboards count up to (build/compute/leaderboards.ts). */
import { computeSeasonDays } from '../compute/leaderboards.ts';
import { defineStage } from './stage.ts';

export const findSeasonDays = defineStage({
  name: 'find season days',
  side: 'night',
  reads: ['seasons', 'points'],
  writes: ['season_days'],
  needs: [],
  makes: [],
  async run(context) {
    await computeSeasonDays(context.db, context.config.lastClosedDay);
    return {};
  },
});
