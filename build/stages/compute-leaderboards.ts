/** Night: every season's leaderboard and the seasons index (build/compute/leaderboards.ts, seasons.ts). */
import { computeLeaderboards as leaderboardsOf } from '../compute/leaderboards.ts';
import { computeSeasonsIndex } from '../compute/seasons.ts';
import type { Stage } from './stage.ts';

export const computeLeaderboards: Stage = {
  name: 'compute leaderboards',
  side: 'night',
  reads: ['seasons', 'points', 'point_addresses', 'multipliers'],
  writes: ['season_days', 'point_parts', 'point_wallets', 'point_totals', 'participants'],
  async run(context) {
    const leaderboards = await leaderboardsOf(context.db, context.config.lastClosedDay);
    context.values.leaderboards = leaderboards;
    context.values.seasonsIndex = await computeSeasonsIndex(context.db, leaderboards);
  },
};
