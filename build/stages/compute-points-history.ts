/** Night: every wallet-season's days, exact day sums and running totals (build/compute/points-history.ts). */
import { computePointsHistory as pointsHistoryOf } from '../compute/points-history.ts';
import type { Stage } from './stage.ts';

export const computePointsHistory: Stage = {
  name: 'compute points history',
  side: 'night',
  reads: ['points', 'season_days'],
  writes: ['history_written', 'history_wallets', 'history_written_keys', 'history_totals'],
  async run(context) {
    await pointsHistoryOf(context.db);
  },
};
