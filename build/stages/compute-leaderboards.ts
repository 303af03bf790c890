/**
 * Night: every season's leaderboard and the seasons index, read off the points histories' day A
 * (build/compute/leaderboards.ts, seasons.ts).
 */
import { computeLeaderboards as leaderboardsOf } from '../compute/leaderboards.ts';
import { computeSeasonsIndex } from '../compute/seasons.ts';
import type { Stage } from './stage.ts';

export const computeLeaderboards: Stage = {
  name: 'compute leaderboards',
  side: 'night',
  reads: ['seasons', 'season_days', 'history_wallets', 'history_totals', 'multipliers'],
  writes: ['participants'],
  async run(context) {
    const leaderboards = await leaderboardsOf(context.db);
    context.values.leaderboards = leaderboards;
    context.values.seasonsIndex = await computeSeasonsIndex(context.db, leaderboards);
  },
};
