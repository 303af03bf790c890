/** Shard: attribution and the portfolio history of the build's wallets, the `snapshots` table (build/compute/history.ts). */
import { computeSnapshots as snapshotsOf } from '../compute/history.ts';
import { defineStage } from './stage.ts';

export const computeSnapshots = defineStage({
  name: 'compute snapshots',
  side: 'shard',
  reads: ['balance_rows', 'chains', 'venue_b_accounts'],
  writes: ['new_york_days', 'snapshots'],
  needs: [],
  makes: ['balanceRows'],
  async run(context) {
    const [{ rows } = { rows: 0 }] = await context.db.rows<{ rows: number }>('SELECT count(*)::DOUBLE AS rows FROM balance_rows');
    await snapshotsOf(context.db, context.config.nowSeconds);
    return { balanceRows: rows };
  },
});
