/**
 * The leaderboard (GET /v1/leaderboard/s{N}): one document per known season, computed in SQL over
 * all points rows.
 */
import { forEachChunk, expectStreamReached } from '../stream.ts';
import type { Database } from '../database.ts';
import type { DuckDBVector } from '@duckdb/node-api';
import { LEADERBOARD_SIZE, type Leaderboard } from '../../schemas/leaderboard.ts';
import { UserError } from '../../core/errors.ts';
import { binnedPartsSql, roundBinnedSum } from './exact-sum.ts';

export async function computeLeaderboards(db: Database, lastClosedDay: string): Promise<Leaderboard[]> {
  // Cut-off C = min(as_of, L) for a frozen season, else L. Day A = C for a frozen season, the
  // latest points date <= C for a live one; null when no points row is dated <= C.
  await db.run(
    `CREATE TABLE season_days AS
     WITH cutoffs AS (
       SELECT season, as_of, CASE WHEN as_of IS NULL THEN $last::DATE ELSE least(as_of, $last::DATE) END AS cutoff
       FROM seasons
     ),
     latest AS (
       SELECT c.season, max(p.date) AS latest_date
       FROM cutoffs c JOIN points p ON p.season = c.season AND p.date <= c.cutoff
       GROUP BY c.season
     )
     SELECT c.season,
            CASE WHEN l.latest_date IS NULL THEN NULL WHEN c.as_of IS NOT NULL THEN c.cutoff ELSE l.latest_date END AS day
     FROM cutoffs c LEFT JOIN latest l ON l.season = c.season`,
    { last: lastClosedDay },
  );
  await computePointTotals(db);
  await db.run(`
    CREATE TABLE participants AS
    SELECT w.season, w.address, t.total_points, t.daily_rate,
           rank() OVER (PARTITION BY w.season ORDER BY t.total_points DESC) AS rank,
           row_number() OVER (PARTITION BY w.season ORDER BY t.total_points DESC, w.address) AS position_in_order,
           count(*) OVER (PARTITION BY w.season) AS total_participants
    FROM point_totals t JOIN point_wallets w ON w.wallet_key = t.wallet_key
    WHERE t.total_points > 0`);

  const seasons = await db.rows<{ season: number; as_of: string | null; total_participants: number }>(`
    SELECT d.season::INTEGER AS season, strftime(d.day, '%Y-%m-%d') AS as_of, coalesce(max(p.total_participants), 0)::INTEGER AS total_participants
    FROM season_days d LEFT JOIN participants p ON p.season = d.season
    GROUP BY d.season, d.day ORDER BY d.season`);
  const entries = await db.rows<{ season: number; rank: number; user: string; total_points: number; daily_rate: number }>(
    `SELECT season::INTEGER AS season, rank::INTEGER AS rank, address AS user, total_points, daily_rate
     FROM participants WHERE position_in_order <= $size
     ORDER BY season, position_in_order`,
    { size: LEADERBOARD_SIZE },
  );
  const multipliers = await db.rows<{ season: number; position: string; multiplier: number; first_day: string; last_day: string }>(`
    SELECT season::INTEGER AS season, position, multiplier, strftime(first_day, '%Y-%m-%d') AS first_day, strftime(last_day, '%Y-%m-%d') AS last_day
    FROM multipliers ORDER BY season, position, first_day, last_day, multiplier`);

  return seasons.map((season) => ({
    season: season.season,
    asOf: season.as_of,
    totalParticipants: season.total_participants,
    multipliers: multipliers
      .filter((row) => row.season === season.season)
      .map((row) => ({ position: row.position, multiplier: row.multiplier, firstDay: row.first_day, lastDay: row.last_day })),
    entries: entries
      .filter((row) => row.season === season.season)
      .map((row) => ({ rank: row.rank, user: row.user, totalPoints: row.total_points, dailyRate: row.daily_rate })),
  }));
}

/**
 * `point_totals`: per (season, wallet), the sum of its points dated <= A and of those dated A,
 * each the exact sum rounded once (exact-sum.ts). Rows repeating (season, date, address) add up.
 * SQL sums each wallet's exact binned parts; the few bins of each wallet are streamed here,
 * rounded, and appended back.
 */
async function computePointTotals(db: Database): Promise<void> {
  const { bin, part } = binnedPartsSql('p.points');
  await db.run(`
    CREATE TABLE point_parts AS
    WITH parts AS (
      SELECT p.season, w.written_id, p.date = d.day AS on_day, ${bin} AS bin, ${part} AS part
      FROM points p
      JOIN point_addresses w ON w.written = p.address_as_written
      JOIN season_days d ON d.season = p.season AND p.date <= d.day
      WHERE p.points <> 0
    ),
    -- Grouped by the address as written (its integer id) first: lower-casing every points row's
    -- address costs more than lower-casing the groups, integer keys keep the grouping's memory
    -- small, and the exact integer parts add up the same in two steps.
    as_written AS (
      SELECT season, written_id, bin, sum(part) AS total_part, coalesce(sum(part) FILTER (WHERE on_day), 0) AS daily_part
      FROM parts GROUP BY season, written_id, bin
    )
    SELECT a.season, w.address, a.bin, sum(a.total_part) AS total_part, sum(a.daily_part) AS daily_part
    FROM as_written a JOIN point_addresses w ON w.written_id = a.written_id
    GROUP BY a.season, w.address, a.bin`);
  await db.run(`
    CREATE TABLE point_wallets AS
    SELECT season, address, (row_number() OVER (ORDER BY season, address))::INTEGER AS wallet_key
    FROM (SELECT DISTINCT season, address FROM point_parts)`);
  await db.run('CREATE TABLE point_totals (wallet_key INTEGER, total_points DOUBLE, daily_rate DOUBLE)');

  // The appender has a connection of its own: on the streaming connection its first flush (some
  // 200,000 rows in) ended the stream early, without an error, and later wallets got no totals.
  const appending = await db.connect();
  const appender = await appending.createAppender('point_totals');
  const result = await db.connection.stream(`
    SELECT w.wallet_key, p.bin, p.total_part, p.daily_part
    FROM point_parts p JOIN point_wallets w ON w.season = p.season AND w.address = p.address
    ORDER BY w.wallet_key, p.bin`);
  let key = -1;
  let appended = 0;
  let bins: number[] = [];
  let totals: bigint[] = [];
  let dailies: bigint[] = [];
  const append = () => {
    const totalPoints = roundBinnedSum(bins, totals);
    const dailyRate = roundBinnedSum(bins, dailies);
    if (!Number.isFinite(totalPoints) || !Number.isFinite(dailyRate)) {
      throw new UserError('points.parquet: column "points": a wallet\'s points in one season add up beyond the largest JSON number');
    }
    appender.appendInteger(key);
    appender.appendDouble(totalPoints);
    appender.appendDouble(dailyRate);
    appender.endRow();
    appended++;
  };
  try {
    await forEachChunk(result, null, async (chunk, rows) => {
      const [keys, binColumn, totalColumn, dailyColumn] = [0, 1, 2, 3].map((column) => chunk.getColumnVector(column)) as [
        DuckDBVector<number>, DuckDBVector<number>, DuckDBVector<bigint>, DuckDBVector<bigint>,
      ];
      for (let row = 0; row < rows; row++) {
        const rowKey = keys.getItem(row)!;
        if (rowKey !== key) {
          if (key !== -1) append();
          key = rowKey;
          bins = [];
          totals = [];
          dailies = [];
        }
        bins.push(binColumn.getItem(row)!);
        totals.push(totalColumn.getItem(row)!);
        dailies.push(dailyColumn.getItem(row)!);
      }
    });
    if (key !== -1) append();
  } finally {
    appender.closeSync();
    appending.disconnectSync();
  }
  const [{ wallets } = { wallets: 0 }] = await db.rows<{ wallets: number }>('SELECT count(*)::DOUBLE AS wallets FROM point_wallets');
  expectStreamReached(appended, wallets, 'point sums (wallet-seasons)');
}
