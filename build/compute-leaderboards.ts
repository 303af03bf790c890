/**
 * SPEC 3.4 (leaderboard): one document per known season, computed in SQL over all points rows.
 */
import type { Database } from './database.ts';
import type { Leaderboard } from '../schemas/leaderboard.ts';

export const LEADERBOARD_SIZE = 100;

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
  // Only rows dated <= A count; rows repeating (season, date, address) add up. fsum (compensated
  // summation) makes the total independent of the row order of the export.
  await db.run(`
    CREATE TABLE participants AS
    WITH totals AS (
      SELECT p.season, p.address, fsum(p.points) AS total_points,
             coalesce(fsum(p.points) FILTER (WHERE p.date = d.day), 0) AS daily_rate
      FROM points p JOIN season_days d ON d.season = p.season AND p.date <= d.day
      GROUP BY p.season, p.address
    )
    SELECT *,
           rank() OVER (PARTITION BY season ORDER BY total_points DESC) AS rank,
           row_number() OVER (PARTITION BY season ORDER BY total_points DESC, address) AS position_in_order,
           count(*) OVER (PARTITION BY season) AS total_participants
    FROM totals
    WHERE total_points > 0`);

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
