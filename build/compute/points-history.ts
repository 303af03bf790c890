/**
 * The points history of one wallet (GET /v1/address/{address}/points/history): for every
 * participant of a season, one row per day from its first day F in the season to the season's day
 * A, with the day's points, the running total and the rank on that day. Every rule is a query of
 * this file, set-based over whole tables: `season_days` (each season's A, leaderboards.ts) is its
 * input. Every wallet's sums up to A are made here once: the leaderboards read theirs off day A.
 *
 * The sums are exact (exact-sum.ts), the double nearest the true sum, as Python's math.fsum: in
 * units of the lowest bin (of 8 bits) of a wallet's values in a season, each of its rows is an
 * exact integer; the day's sum and the running sum are exact HUGEINT window sums over the rows,
 * and both are rounded once to the nearest double in SQL. The row of day A is the standing's
 * `totalPoints` and `dailyRate` (leaderboards.ts reads them there). The few wallet-seasons whose
 * values span too many bits for a HUGEINT (or reach subnormal doubles) are summed in JS with
 * BigInt instead.
 */
import { forEachChunk, expectStreamReached } from '../stream.ts';
import type { DuckDBVector } from '@duckdb/node-api';
import type { Database } from '../database.ts';
import { UserError } from '../../core/errors.ts';
import { isParticipantSql } from '../../core/participant.ts';
import { competitionRankSql } from '../../core/competition-rank.ts';
import { BIN_BITS, binnedPartsSql, nearestDoubleSql, roundBinnedSum } from './exact-sum.ts';

/**
 * A wallet-season is summed in SQL when its exact sums stay below 2^126 (a HUGEINT holds 2^127):
 * in units of its lowest bin a row is below 2^63 times 2^(8 * (highest bin - lowest bin)), so
 * bins at most 5 apart and at most 2^23 rows keep sums below 2^126. Its lowest bin at least -127
 * keeps every non-zero sum a normal double (at least 2^-1016), which the rounding below needs.
 */
const MAX_BIN_SPREAD = 5;
const MAX_ROWS = 2 ** 23;
const MIN_LOWEST_BIN = -127;

/**
 * Where an incremental night starts (docs/incremental-nights.md): the day from which every
 * wallet-season's days are computed again (`from`, a day number), the days before it being the
 * previous night's; and the table of the previous night's wallet-season keys (address, season, key),
 * which the wallet-seasons keep so that its rows can be reused as they are. `carried`: the
 * relation of the previous night's running totals (POINTS_TOTALS_COLUMNS, each on its season's day
 * A, which is before `from`), which the sums start from, the `points` view then holding the rows
 * of day `from` on only; null: every earlier row is summed again from `points`. Null: the whole history.
 */
export interface HistoryResume {
  from: number;
  previousKeys: string;
  nextKey: number;
  carried: string | null;
}

/**
 * What a night carries to the next one of each wallet-season (the night's points-totals.parquet):
 * its first and last day (day A), the lowest and highest bins of its non-zero values (null without
 * one) and its row count, which the next night's sums merge with its new rows; its exact running
 * total on day A in units of its lowest bin (null when summed in JS: that night sums again); and
 * its points on day A.
 */
export const POINTS_TOTALS_SQL = `
  SELECT w.season, w.address, w.first_day, w.last_day, w.min_bin, w.max_bin, w.row_count, t.exact_total, t.points AS points_at_last
  FROM history_wallets w JOIN history_totals t ON t.wallet = w.wallet AND t.day = w.last_day`;

/**
 * Every wallet-season's days and sums into `history_wallets` and `history_totals`. Returns false,
 * having made neither, when an incremental night's carried totals cannot serve (a wallet-season
 * they hold now needs its sums in JS, rare): the night is then made whole.
 */
export async function computePointsHistory(db: Database, resume: HistoryResume | null = null): Promise<boolean> {
  // A wallet's lowest and highest bin are those of its smallest and largest non-zero |points|:
  // each row's exponent is only needed for those two (log2 per row costs more than the rest).
  // Rows of 0 only have no bin (null).
  const lowestBin = `CASE WHEN min_magnitude IS NOT NULL THEN ${binnedPartsSql('min_magnitude').bin} END`;
  const highestBin = `CASE WHEN max_magnitude IS NOT NULL THEN ${binnedPartsSql('max_magnitude').bin} END`;
  // Rule: only rows dated <= A count; F = the earliest date <= A of the wallet's rows, a row of 0
  // points included. Grouped by the address as written first (lower-casing every row costs more
  // than lower-casing the groups).
  await db.run(`
    CREATE TABLE history_written AS
    SELECT season, address_as_written, ${lowestBin} AS lowest_bin, ${highestBin} AS highest_bin, row_count, first_date
    FROM (
      SELECT p.season, p.address_as_written, min(abs(p.points)) FILTER (WHERE p.points <> 0) AS min_magnitude, max(abs(p.points)) FILTER (WHERE p.points <> 0) AS max_magnitude,
             count(*) AS row_count, min(p.date) AS first_date
      FROM points p JOIN season_days d ON d.season = p.season AND p.date <= d.day
      GROUP BY p.season, p.address_as_written
    )`);
  // A wallet-season the previous night held keeps its key; the others get new ones, above every
  // key that night's rows may hold.
  const walletKey = resume
    ? `coalesce(k.key, ${resume.nextKey} + (row_number() OVER (PARTITION BY k.key IS NULL ORDER BY w.address, w.season)) - 1)::INTEGER`
    : '(row_number() OVER (ORDER BY w.address, w.season))::INTEGER';
  // The days computed: from F, or, resuming, from the day the night starts at (the day A alone for a
  // season whose A is earlier: the leaderboards and ranks read it there).
  const firstDay = "(w.first_date - DATE '1970-01-01')";
  const lastDay = "(d.day - DATE '1970-01-01')";
  const startDay = resume ? `least(greatest(${firstDay}, ${resume.from}), ${lastDay})` : firstDay;
  // Each wallet-season (rows in several letter cases are one wallet) gets an integer key in
  // address then season order, the order of the documents' rows, so that the large steps below
  // join and sort integers. Its days run from F to A; `fits` says whether its sums are done in
  // SQL (else in JS, appendWideSums).
  // With carried totals, a wallet-season's facts are the previous night's merged with its new
  // rows' (its bins and row count grow, its first day stays), and `base` is its running total
  // before its start day: the previous night's, rescaled to its lowest bin (a power of two scales
  // an integer exactly).
  const written = `
      SELECT season, lower(address_as_written) AS address, min(lowest_bin) AS min_bin, max(highest_bin) AS max_bin,
             sum(row_count) AS row_count, min(first_date) AS first_date
      FROM history_written GROUP BY season, lower(address_as_written)`;
  const wallets = resume?.carried
    ? `SELECT coalesce(n.season, c.season) AS season, coalesce(n.address, c.address) AS address,
              CASE WHEN n.min_bin IS NULL THEN c.min_bin WHEN c.min_bin IS NULL THEN n.min_bin ELSE least(n.min_bin, c.min_bin) END AS min_bin,
              CASE WHEN n.max_bin IS NULL THEN c.max_bin WHEN c.max_bin IS NULL THEN n.max_bin ELSE greatest(n.max_bin, c.max_bin) END AS max_bin,
              coalesce(n.row_count, 0) + coalesce(c.row_count, 0) AS row_count,
              coalesce(DATE '1970-01-01' + c.first_day, n.first_date) AS first_date,
              c.season IS NOT NULL AS carried, coalesce(c.min_bin, 0) AS carried_bin, c.exact_total AS carried_total,
              CASE WHEN c.last_day = d.day - DATE '1970-01-01' THEN c.points_at_last END AS carried_points
       FROM (${written}) n FULL OUTER JOIN (${resume.carried}) c ON c.season = n.season AND c.address = n.address
       JOIN season_days d ON d.season = coalesce(n.season, c.season)`
    : `SELECT *, false AS carried, NULL::INTEGER AS carried_bin, NULL::HUGEINT AS carried_total, NULL::DOUBLE AS carried_points FROM (${written})`;
  await db.run(`
    CREATE TABLE history_wallets AS
    WITH wallets AS (SELECT * REPLACE (coalesce(min_bin, 0) AS min_bin), min_bin AS min_bin_or_null FROM (${wallets}))
    SELECT w.season, w.address, ${walletKey} AS wallet, w.min_bin AS lowest_bin,
           (w.first_date - DATE '1970-01-01')::INTEGER AS first_day, (d.day - DATE '1970-01-01')::INTEGER AS last_day,
           ${startDay}::INTEGER AS start_day,
           coalesce(w.max_bin, 0) - w.min_bin <= ${MAX_BIN_SPREAD} AND w.row_count <= ${MAX_ROWS} AND w.min_bin >= ${MIN_LOWEST_BIN} AS fits,
           w.min_bin_or_null AS min_bin, w.max_bin, w.row_count::BIGINT AS row_count, w.carried,
           CASE WHEN w.carried THEN w.carried_total * pow(2::DOUBLE, ${BIN_BITS} * (w.carried_bin - w.min_bin))::HUGEINT END AS base,
           w.carried_points
    FROM wallets w JOIN season_days d ON d.season = w.season
    ${resume ? `LEFT JOIN ${resume.previousKeys} k ON k.address = w.address AND k.season = w.season` : ''}`);
  if (resume?.carried) {
    // A carried wallet-season whose sums no longer fit in SQL (new rows of very different
    // magnitudes), or summed in JS the night before: its earlier rows are needed, which this night
    // did not load.
    const [{ uncarried } = { uncarried: 0 }] = await db.rows<{ uncarried: number }>(
      'SELECT count(*)::INTEGER AS uncarried FROM history_wallets WHERE carried AND (NOT fits OR base IS NULL)',
    );
    if (uncarried > 0) return false;
  }

  await db.run(`
    CREATE TABLE history_written_keys AS
    SELECT h.season, h.address_as_written, w.wallet, w.lowest_bin, w.fits, w.start_day
    FROM history_written h JOIN history_wallets w ON w.season = h.season AND w.address = lower(h.address_as_written)`);

  // Rule: `points` of day d = the sum of the wallet's rows dated d (rows repeating (season, date,
  // address) add up), and `totalPoints` = the sum of its rows dated <= d, each summed exactly as
  // HUGEINT: each row in units of the wallet's lowest bin (2^(8 * lowest_bin)) is an integer below
  // 2^103 (a power of two scales a double exactly, and DuckDB casts an integral DOUBLE to HUGEINT
  // exactly). One window over the rows, in wallet and day order, gives both sums at each row (the
  // day's rows are its peers), and the day's last row stands for the day: no grouping of the rows
  // by wallet-day before the window sorts them (that grouping spilled at 1,000,000 wallets).
  // Both sums are rounded once to the nearest double; there is one row for every day from F to A,
  // no gaps: each day with rows stands for itself and the days without rows up to the next one
  // (points 0, the same total).
  // `exact_total`, on day A only, is the running total the next night starts from (POINTS_TOTALS_SQL).
  await db.run(`
    CREATE TABLE history_totals AS
    WITH ${resume ? resumedRunningSql(resume.carried !== null) : WHOLE_RUNNING_SQL},
    rounded AS (
      SELECT wallet, day, next_day, last_day, coalesce(single_value, ${nearestDouble('day_sum')}, carried_points, 0) AS points,
             ${nearestDouble('running_sum')} AS total_points, running_sum
      FROM running
    ),
    expanded AS (
      SELECT wallet, day AS first_day, unnest(range(day, next_day))::INTEGER AS day, last_day, points, total_points, running_sum FROM rounded
    )
    SELECT wallet, day, CASE WHEN day = first_day THEN points ELSE 0 END AS points, total_points,
           CASE WHEN day = last_day THEN running_sum END AS exact_total
    FROM expanded`);
  await appendWideSums(db);
  // Every day of every wallet-season must be there (build/stream.ts).
  const [{ days, totals } = { days: 0, totals: 0 }] = await db.rows<{ days: number | null; totals: number }>(
    'SELECT (SELECT sum(last_day - start_day + 1) FROM history_wallets)::DOUBLE AS days, (SELECT count(*) FROM history_totals)::DOUBLE AS totals',
  );
  expectStreamReached(totals, days ?? 0, 'points history days (of every wallet-season)');

  const [{ infinite } = { infinite: 0 }] = await db.rows<{ infinite: number }>(
    'SELECT count(*)::INTEGER AS infinite FROM history_totals WHERE NOT isfinite(points) OR NOT isfinite(total_points)',
  );
  if (infinite > 0)
    throw new UserError('points.parquet: column "points": a wallet\'s points in one season add up beyond the largest JSON number');
  return true;
}

/**
 * The double nearest to the exact sum h in units of the wallet-season's lowest bin (exact-sum.ts);
 * MIN_LOWEST_BIN keeps it a normal double.
 */
function nearestDouble(h: string): string {
  return nearestDoubleSql(h, `${BIN_BITS} * lowest_bin`);
}

/**
 * The rows that count (dated <= the season's A) of the wallet-seasons summed in SQL, each with its
 * wallet-season key, its lowest bin, its points and its exact part in units of that bin (a power of
 * two scales a double exactly, and DuckDB casts an integral DOUBLE to HUGEINT exactly), and `day`.
 */
function fittingRowsSql(day: string): string {
  return `
      SELECT k.wallet, ${day}, k.lowest_bin, p.points, (p.points * pow(2::DOUBLE, -8 * k.lowest_bin))::HUGEINT AS part
      FROM points p
      JOIN history_written_keys k ON k.season = p.season AND k.address_as_written = p.address_as_written
      JOIN season_days d ON d.season = p.season AND p.date <= d.day
      WHERE k.fits`;
}

/**
 * Each day of a wallet-season that has rows, with the sums of its rows (`day_rows`, `single_value`
 * when there is one, `day_sum` when there are more) and the running sum of the rows up to it, and
 * the next day with rows (or A + 1): the whole history. One window over the rows, in wallet and day
 * order, gives both sums at each row (the day's rows are its peers), and the day's last row stands
 * for the day: no grouping of the rows by wallet-day before the window sorts them (that grouping
 * spilled at 1,000,000 wallets).
 */
const WHOLE_RUNNING_SQL = `
    parts AS (${fittingRowsSql("(p.date - DATE '1970-01-01')::INTEGER AS day")}),
    windowed AS (
      SELECT wallet, day, lowest_bin, points,
             sum(part) OVER (by_day RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running_sum,
             sum(part) OVER (by_day RANGE BETWEEN CURRENT ROW AND CURRENT ROW) AS day_total,
             count(*) OVER (by_day RANGE BETWEEN CURRENT ROW AND CURRENT ROW) AS day_rows,
             lead(day) OVER by_day AS next_row_day
      FROM parts
      WINDOW by_day AS (PARTITION BY wallet ORDER BY day)
    ),
    running AS (
      -- A day's last row stands for the day; a day of one row (the common case) has that row's
      -- value as its sum, with nothing to round.
      SELECT w.wallet, w.day, w.lowest_bin, CASE WHEN w.day_rows = 1 THEN w.points END AS single_value,
             CASE WHEN w.day_rows > 1 THEN w.day_total END AS day_sum, NULL::DOUBLE AS carried_points, w.running_sum,
             coalesce(w.next_row_day, h.last_day + 1) AS next_day, h.last_day
      FROM windowed w JOIN history_wallets h ON h.wallet = w.wallet
      WHERE w.next_row_day IS DISTINCT FROM w.day
    )`;

/**
 * The same days and sums from each wallet-season's start day on (an incremental night): the rows
 * before it are added up into the start day's running sum (a grouping that keeps one group per
 * wallet-season for the past, and one per new day), so that only the new days are windowed and
 * expanded. A start day without rows of its own has points 0 (no rows: `day_rows` 0). With carried
 * totals (`carried`), the rows before the start day are not read: the wallet-season's `base`
 * stands for them, one more part of the start day's group, and a start day that is the carried
 * day A itself (a season that had no new day) keeps that day's points (`carried_points`).
 */
function resumedRunningSql(carried: boolean): string {
  const base = carried
    ? `UNION ALL
       SELECT wallet, start_day - 1 AS row_day, start_day, lowest_bin, NULL::DOUBLE AS points, base AS part, carried_points
       FROM history_wallets WHERE carried`
    : '';
  return `
    parts AS (
      SELECT *, NULL::DOUBLE AS carried_points FROM (${fittingRowsSql("(p.date - DATE '1970-01-01')::INTEGER AS row_day, k.start_day")})
      ${base}
    ),
    grouped AS (
      SELECT wallet, greatest(row_day, start_day) AS day, any_value(lowest_bin) AS lowest_bin,
             count(*) FILTER (WHERE row_day >= start_day) AS day_rows,
             any_value(points) FILTER (WHERE row_day >= start_day) AS any_points,
             sum(part) FILTER (WHERE row_day >= start_day) AS day_total,
             sum(part) AS group_sum, any_value(carried_points) AS carried_points
      FROM parts GROUP BY wallet, greatest(row_day, start_day)
    ),
    windowed AS (
      SELECT *, sum(group_sum) OVER by_day AS running_sum, lead(day) OVER by_day AS next_row_day
      FROM grouped
      WINDOW by_day AS (PARTITION BY wallet ORDER BY day ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
    ),
    running AS (
      SELECT w.wallet, w.day, w.lowest_bin, CASE WHEN w.day_rows = 1 THEN w.any_points END AS single_value,
             CASE WHEN w.day_rows > 1 THEN w.day_total END AS day_sum, w.carried_points, w.running_sum,
             coalesce(w.next_row_day, h.last_day + 1) AS next_day, h.last_day
      FROM windowed w JOIN history_wallets h ON h.wallet = w.wallet
    )`;
}

/**
 * The rows of the points history documents, cut to the participants of the shard (`inShard`,
 * over `w.address`): `points_history_wallets`, a table of each participant's wallet-season key with
 * its address and season (made once: the days, their cut into shards and the documents' rows all
 * join it), and the view `points_history_days`, its days keyed by (wallet, day), the order of
 * the documents (address, season, day). Kept apart so that the 365M days of 1,000,000 wallets
 * carry no address string: written with them, prepare's cut of the rows into shard folders took
 * about three times as long (bench/LOG.md). `points_history_days_by_shard` is the same days with
 * each one's shard folder (`shardOf`, over an address), which prepare's cut writes by.
 * Rule: `rank` on day d = 1 + the number of wallets (of all shards, participants or not) whose sum
 * of rows dated <= d is strictly greater, when the wallet's own sum is > 0, else null. The rank is
 * taken over every wallet's row of that day before the rows are cut to the participants of the
 * shard. Each row's participant and shard are joined before the rank, while the rows are in wallet
 * order: after it, in rank order, each of 365M lookups missed the cache (two joins took 42 of the
 * cut's 300 CPU-s at 1,000,000 wallets, bench/LOG.md). The days are views: the whole build streams
 * them once; `prepare` writes them once, cut by shard.
 */
export async function rankPointsHistory(db: Database, inShard: string, shardOf: (address: string) => string): Promise<void> {
  await db.run(`
    CREATE TABLE points_history_wallets AS
    SELECT w.wallet, w.address, w.season::INTEGER AS season FROM history_wallets w
    SEMI JOIN participants p ON p.season = w.season AND p.address = w.address
    WHERE ${inShard}`);
  await db.run(`
    CREATE VIEW points_history_days_by_shard AS
    WITH ranked AS (
      SELECT t.wallet, t.day, t.points, t.total_points, s.shard,
             CASE WHEN ${isParticipantSql('t.total_points')} THEN ${competitionRankSql('t.total_points', 'w.season, t.day')} END AS rank
      FROM history_totals t JOIN history_wallets w ON w.wallet = t.wallet
      LEFT JOIN (SELECT wallet, ${shardOf('address')} AS shard FROM points_history_wallets) s ON s.wallet = t.wallet
    )
    SELECT wallet, day, points, total_points, rank::INTEGER AS rank, shard FROM ranked WHERE shard IS NOT NULL`);
  await db.run('CREATE VIEW points_history_days AS SELECT * EXCLUDE (shard) FROM points_history_days_by_shard');
}

/**
 * The rows of the documents, in their order: a wallet's seasons, each season's days (rank 0: none,
 * the document's null). Each wallet-season's address and season come from
 * POINTS_HISTORY_WALLETS_SQL, read alongside: carried on every day, the address made the sort
 * twice as long (bench/LOG.md).
 */
export const POINTS_HISTORY_ROWS_SQL = `
  SELECT wallet, day, points, total_points, coalesce(rank, 0)::INTEGER AS rank
  FROM points_history_days
  ORDER BY wallet, day`;

/** Each wallet-season's address and season, in the order of POINTS_HISTORY_ROWS_SQL's wallets. */
export const POINTS_HISTORY_WALLETS_SQL = 'SELECT wallet, address, season FROM points_history_wallets ORDER BY wallet';

/**
 * The wallet-seasons whose exact sums do not fit a HUGEINT (values of very different magnitudes):
 * the same sums, with each day's bins combined into one BigInt and rounded once (exact-sum.ts),
 * appended to `history_totals`. Rare in real exports; the random reference test reaches it.
 */
async function appendWideSums(db: Database): Promise<void> {
  const appending = await db.connect();
  // Only the few wide wallet-seasons are staged; days are day numbers, as in history_totals.
  await appending.run('CREATE TABLE history_wide_totals (wallet INTEGER, day INTEGER, points DOUBLE, total_points DOUBLE)');
  const appender = await appending.createAppender('history_wide_totals');
  const { bin, part } = binnedPartsSql('p.points');
  const result = await db.connection.stream(`
    SELECT k.wallet, (p.date - DATE '1970-01-01')::INTEGER AS day, w.first_day, w.last_day, w.start_day,
           CASE WHEN p.points <> 0 THEN ${bin} END AS bin, CASE WHEN p.points <> 0 THEN ${part} ELSE 0 END AS part
    FROM points p
    JOIN history_written_keys k ON k.season = p.season AND k.address_as_written = p.address_as_written
    JOIN history_wallets w ON w.wallet = k.wallet
    JOIN season_days d ON d.season = p.season AND p.date <= d.day
    WHERE NOT k.fits
    ORDER BY k.wallet, day, bin`);
  let wallet = -1;
  let lastDay = 0;
  /** The wallet-season's first day written: its start day (days before it are the previous night's). */
  let startDay = 0;
  let nextDay = 0;
  /** The wallet-season's running sum per bin, and the current day's. */
  let running = new Map<number, bigint>();
  let today = new Map<number, bigint>();
  let todayNumber: number | null = null;
  const append = (day: number, points: number, total: number) => {
    if (day < startDay) return;
    appender.appendInteger(wallet);
    appender.appendInteger(day);
    appender.appendDouble(points);
    appender.appendDouble(total);
    appender.endRow();
  };
  const rounded = (sums: Map<number, bigint>) => {
    const bins = [...sums.keys()].sort((a, b) => a - b);
    return roundBinnedSum(
      bins,
      bins.map((one) => sums.get(one)!),
    );
  };
  /** Writes the days before `until`: the current day with its rows, the others with 0. */
  const closeDaysBefore = (until: number) => {
    if (todayNumber !== null) {
      append(todayNumber, rounded(today), rounded(running));
      nextDay = todayNumber + 1;
      todayNumber = null;
      today = new Map();
    }
    const total = rounded(running);
    for (; nextDay < until; nextDay++) append(nextDay, 0, total);
  };
  try {
    await forEachChunk(result, null, async (chunk, rows) => {
      const [wallets, days, firstDays, lastDays, startDays, bins, parts] = [0, 1, 2, 3, 4, 5, 6].map((column) =>
        chunk.getColumnVector(column),
      ) as [
        DuckDBVector<number>,
        DuckDBVector<number>,
        DuckDBVector<number>,
        DuckDBVector<number>,
        DuckDBVector<number>,
        DuckDBVector<number | null>,
        DuckDBVector<bigint>,
      ];
      for (let row = 0; row < rows; row++) {
        const rowWallet = wallets.getItem(row)!;
        const day = days.getItem(row)!;
        if (rowWallet !== wallet) {
          if (wallet !== -1) closeDaysBefore(lastDay + 1);
          wallet = rowWallet;
          lastDay = lastDays.getItem(row)!;
          startDay = startDays.getItem(row)!;
          nextDay = firstDays.getItem(row)!;
          running = new Map();
        }
        if (day !== todayNumber) {
          closeDaysBefore(day);
          todayNumber = day;
        }
        const rowBin = bins.getItem(row);
        if (rowBin === null) continue;
        const rowPart = parts.getItem(row)!;
        today.set(rowBin, (today.get(rowBin) ?? 0n) + rowPart);
        running.set(rowBin, (running.get(rowBin) ?? 0n) + rowPart);
      }
    });
    if (wallet !== -1) closeDaysBefore(lastDay + 1);
  } finally {
    appender.closeSync();
  }
  try {
    await appending.run(
      'INSERT INTO history_totals SELECT wallet, day, points, total_points, NULL FROM history_wide_totals; DROP TABLE history_wide_totals',
    );
  } finally {
    appending.disconnectSync();
  }
}
