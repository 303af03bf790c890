/**
 * Night: each season's day A, which the points histories and the leaderboards count up to
 * (build/compute/leaderboards.ts). An incremental night that starts from the previous night's
 * running totals holds the points of its new days only; the previous night's days A stand for
 * the rest.
 */
import { computeSeasonDays } from '../compute/leaderboards.ts';
import { defineStage } from './stage.ts';

export const findSeasonDays = defineStage({
  name: 'find season days',
  side: 'night',
  reads: ['seasons', 'points'],
  writes: ['season_days'],
  needs: ['resume'],
  makes: [],
  async run(context, { resume }) {
    await computeSeasonDays(context.db, context.config.lastClosedDay, resume?.carriedTotals ? resume.record.seasonDays : null);
    return {};
  },
});
