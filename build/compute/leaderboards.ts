/**
 * The leaderboard (GET /v1/leaderboard/s{N}): one document per known season. Each season's day A
 * is found first (`season_days`); every wallet's sums up to A are the points histories' running
 * totals (points-history.ts), and the leaderboard is read off their day A.
 */
import type { Database } from '../database.ts';
import { LEADERBOARD_SIZE, type Leaderboard } from '../../schemas/leaderboard.ts';
import { isParticipantSql } from '../../core/participant.ts';
import { competitionRankSql } from '../../core/competition-rank.ts';

/**
 * `season_days`: each known season's day A (null when the season has no points row dated <= C).
 * The points histories (points-history.ts) sum every wallet's rows up to it; the leaderboard is
 * read off their day A. `previousDays` (an incremental night whose `points` holds the rows of its
 * new days only): each season's day A of the previous night, the latest date of its rows then,
 * which no row of an unchanged day can pass.
 */
export async function computeSeasonDays(
  db: Database,
  lastClosedDay: string,
  previousDays: Record<string, number | null> | null = null,
): Promise<void> {
  const previous = Object.entries(previousDays ?? {}).filter(([, day]) => day !== null);
  const earlier =
    previous.length === 0
      ? ''
      : `UNION ALL
         SELECT c.season, DATE '1970-01-01' + e.day FROM cutoffs c
         JOIN (VALUES ${previous.map(([season, day]) => `(${Number(season)}, ${day})`).join(', ')}) e(season, day)
           ON e.season = c.season AND DATE '1970-01-01' + e.day <= c.cutoff`;
  // Cut-off C = min(as_of, L) for a frozen season, else L. Day A = C for a frozen season, the
  // latest points date <= C for a live one; null when no points row is dated <= C.
  await db.run(
    `CREATE TABLE season_days AS
     WITH cutoffs AS (
       SELECT season, as_of, CASE WHEN as_of IS NULL THEN $last::DATE ELSE least(as_of, $last::DATE) END AS cutoff
       FROM seasons
     ),
     latest AS (
       SELECT season, max(latest_date) AS latest_date FROM (
         SELECT c.season, max(p.date) AS latest_date
         FROM cutoffs c JOIN points p ON p.season = c.season AND p.date <= c.cutoff
         GROUP BY c.season
         ${earlier}
       ) GROUP BY season
     )
     SELECT c.season,
            CASE WHEN l.latest_date IS NULL THEN NULL WHEN c.as_of IS NOT NULL THEN c.cutoff ELSE l.latest_date END AS day
     FROM cutoffs c LEFT JOIN latest l ON l.season = c.season`,
    { last: lastClosedDay },
  );
}

export async function computeLeaderboards(db: Database): Promise<Leaderboard[]> {
  // Rule: a wallet's totalPoints is the sum of its rows dated <= A and its dailyRate that of its
  // rows dated A: the points history's running total and points on day A, the same exact sums
  // (points-history.ts), so the standing and the history's day A agree by construction.
  // Participants as core/participant.ts says (totalPoints above 0); ranks as core/competition-rank.ts says; the order
  // is totalPoints descending, then address. (A day of -0 points is written "0": every writer
  // prints numbers as JavaScript does, and the test of -0 reads the bytes.)
  await db.run(`
    CREATE TABLE participants AS
    SELECT w.season, w.address, t.total_points, t.points AS daily_rate,
           ${competitionRankSql('t.total_points', 'w.season')} AS rank,
           row_number() OVER (PARTITION BY w.season ORDER BY t.total_points DESC, w.address) AS position_in_order,
           count(*) OVER (PARTITION BY w.season) AS total_participants
    FROM history_wallets w JOIN history_totals t ON t.wallet = w.wallet AND t.day = w.last_day
    WHERE ${isParticipantSql('t.total_points')}`);

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
