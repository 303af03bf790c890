/**
 * Night: each participant's rank on every day, over all wallets (build/compute/points-history.ts),
 * as the rows of the points history documents, cut to the shard's participants when the build has
 * one. A rank needs every wallet of the night: this is why the points histories are the night's
 * work and not a shard's.
 */
import { rankPointsHistory as rank } from '../compute/points-history.ts';
import { shardFilterSql, shardNumberSql } from '../../core/shard.ts';
import { defineStage } from './stage.ts';

export const rankPointsHistory = defineStage({
  name: 'rank points history',
  side: 'night',
  reads: ['history_totals', 'history_wallets', 'participants'],
  writes: ['points_history_wallets', 'points_history_days_by_shard', 'points_history_days'],
  needs: ['shards'],
  makes: [],
  async run(context, { shards }) {
    await rank(context.db, shardFilterSql(context.config.shard, 'w.address'), (address) => shardNumberSql(shards, address));
    return {};
  },
});
