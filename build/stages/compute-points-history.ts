/**
 * Night: every wallet-season's days, exact day sums and running totals (build/compute/points-history.ts);
 * an incremental night computes the days from its first day on, its wallet-seasons keeping the keys
 * the previous night's shard folders gave them, and its sums starting from the previous night's
 * running totals (points-totals.parquet) when they hold unchanged rows only.
 */
import path from 'node:path';
import { computePointsHistory as pointsHistoryOf } from '../compute/points-history.ts';
import { literalPathSql } from '../database.ts';
import { POINTS_TOTALS_FILE } from '../night-state.ts';
import { PREPARED_TABLES, preparedFolderName, tableFile } from '../prepared-folder.ts';
import { defineStage, fullNightNeeded } from './stage.ts';

export const computePointsHistory = defineStage({
  name: 'compute points history',
  side: 'night',
  reads: ['points', 'season_days'],
  writes: ['history_written', 'history_wallets', 'history_written_keys', 'history_totals'],
  needs: ['resume', 'shards'],
  makes: [],
  async run(context, { resume, shards }) {
    // An incremental night's first day (find-changed-days.ts); null for a full night and for a build from the exports.
    if (resume === null) {
      await pointsHistoryOf(context.db);
      return {};
    }
    const wallets = tableFile(PREPARED_TABLES.find((table) => table.name === 'points_history_wallets')!);
    const files = Array.from({ length: shards }, (_, i) =>
      literalPathSql(path.join(resume.previousNight, preparedFolderName({ index: i + 1, count: shards }), wallets)),
    );
    await context.db.run(
      `CREATE TABLE previous_history_keys AS SELECT address, season, wallet AS key FROM read_parquet([${files.join(', ')}])`,
    );
    const carried = resume.carriedTotals
      ? // Through the decimal text: DuckDB's own cast of a DECIMAL(38,0) to HUGEINT is three times slower.
        `SELECT * REPLACE (CAST(CAST(exact_total AS VARCHAR) AS HUGEINT) AS exact_total) FROM read_parquet(${literalPathSql(path.join(resume.previousNight, POINTS_TOTALS_FILE))})`
      : null;
    const computed = await pointsHistoryOf(context.db, {
      from: resume.from,
      previousKeys: 'previous_history_keys',
      nextKey: resume.record.nextHistoryKey,
      carried,
    });
    if (!computed) return fullNightNeeded('a wallet-season whose sums need its rows before the first recomputed day');
    return {};
  },
});
