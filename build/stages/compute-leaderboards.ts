/**
 * Night: every season's leaderboard and the seasons index, read off the points histories' day A
 * (build/compute/leaderboards.ts, seasons.ts).
 */
import { computeLeaderboards as leaderboardsOf } from '../compute/leaderboards.ts';
import { computeSeasonsIndex } from '../compute/seasons.ts';
import { defineStage } from './stage.ts';

export const computeLeaderboards = defineStage({
  name: 'compute leaderboards',
  side: 'night',
  reads: ['seasons', 'season_days', 'history_wallets', 'history_totals', 'multipliers'],
  writes: ['participants'],
  needs: [],
  makes: ['leaderboards', 'seasonsIndex'],
  async run(context) {
    const leaderboards = await leaderboardsOf(context.db);
    return { leaderboards, seasonsIndex: await computeSeasonsIndex(context.db, leaderboards) };
  },
});
