/**
 * The figures of the night's summary (schemas/night-summary.ts, docs/reliability.md#the-nights-summary), each one query, set-based
 * over whole tables, for the build's own wallets (its shard's, so that N shards add up):
 * - wallets: those with a snapshot, as the wallet stream counts them (build/write/wallets.ts);
 * - for each of the last SUMMARY_DAYS closed days, the sum of every wallet's `totalValueUsd`
 *   (docs/semantics.md#daily-portfolio): the end-of-day raw balances of each chain and token are summed over all wallets
 *   first (exactly, as HUGEINTs), then scaled and priced once per chain, token and day, so that
 *   the query never expands a wallet's days;
 * - the positions of the last closed day, and those without a price (see below);
 * - each season's participants on each of those days, from the points history's running totals:
 *   a fact of the night's side, counted per shard there (participantsByDayOfShards), since a
 *   prepared shard holds no running totals of wallets that are not participants.
 *
 * The sum of values differs from adding up the documents' `totalValueUsd` only by the rounding
 * of doubles (a relative 1e-12 or less): exact enough for thresholds of a percent, and a sum the
 * document threads need not carry back (docs/reliability.md).
 */
import type { Database } from '../database.ts';
import { SUMMARY_DAYS } from '../../schemas/night-summary.ts';
import { isParticipantSql } from '../../core/participant.ts';
import { type Shard, shardFilterSql, shardNumberSql } from '../../core/shard.ts';
import { dayNumber, dayText } from './days.ts';
import { chainIndexOfSeriesSql, tokenIndexOfSeriesSql, walletOfSeriesSql } from './series-key.ts';
import { heldBalancesSql, lastSnapshotOfDaySql, usdPerTokenOnDaySql } from './daily-positions.ts';
import { valueUsdSql } from '../../core/position-value.ts';

export interface NightFigures {
  wallets: number;
  positions: number;
  positionsWithoutPrice: number;
  days: { date: string; totalValueUsd: number }[];
  /** season -> participants on each of `days`. */
  participantsByDay: Map<number, number[]>;
}

/** The figures of the shard's own wallets: all but the participants, which the night's side counts. */
export async function computeNightFigures(
  db: Database,
  lastClosedDay: string,
  shard: Shard | null,
): Promise<Omit<NightFigures, 'participantsByDay'>> {
  const last = dayNumber(lastClosedDay);
  const first = last - SUMMARY_DAYS + 1;
  // A shard's build holds its own wallets' snapshots only; the filter keeps that true whatever
  // the tables hold (as unpriced.ts does), and costs a join only in a shard's build.
  const snapshots =
    shard === null
      ? 'snapshots'
      : `(SELECT s.* FROM snapshots s JOIN addresses a ON a.id = ${walletOfSeriesSql('s.series')} WHERE ${shardFilterSql(shard, 'a.address')})`;
  const [{ wallets } = { wallets: 0 }] = await db.rows<{ wallets: number }>(
    `SELECT count(DISTINCT ${walletOfSeriesSql('series')})::INTEGER AS wallets FROM ${snapshots}`,
  );

  // The balances held at the days' ends (daily-positions.ts). Only the window's days matter, so the
  // days before it are one row per series (its latest snapshot before the window, standing for the
  // day before it), grouped without a sort; a running arg_max orders the few rows left. Only the
  // spans that reach the window and hold a non-zero balance (a position) count.
  await db.run(
    `CREATE TEMPORARY TABLE night_held AS
     WITH
     before_window AS (
       SELECT series, $first - 1 AS day, max(number) AS number, arg_max(raw_balance, number) AS raw
       FROM ${snapshots} WHERE day < $first GROUP BY series
     ),
     in_window AS (${lastSnapshotOfDaySql(`${snapshots} s`, 's.day BETWEEN $first AND $last')}),
     held AS (${heldBalancesSql('(SELECT * FROM before_window UNION ALL SELECT * FROM in_window)')})
     SELECT ${chainIndexOfSeriesSql('series')} AS chain_index, ${tokenIndexOfSeriesSql('series')} AS token_index,
            greatest(from_day, $first)::INTEGER AS from_day, to_day::INTEGER AS to_day, raw
     FROM held WHERE raw <> 0`,
    { first, last },
  );
  try {
    // Each chain and token's summed raw balance on each day of the window: a span adds its balance
    // from its first day and takes it back the day after its last; a running sum adds the changes.
    // Then each one's value (core/position-value.ts) with the price of the day (daily-positions.ts).
    const price = usdPerTokenOnDaySql('q');
    const values = await db.rows<{ day: number; value: number | null }>(
      `WITH
       changes AS (
         SELECT chain_index, token_index, from_day AS day, raw AS change FROM night_held
         UNION ALL
         SELECT chain_index, token_index, to_day + 1 AS day, -raw AS change FROM night_held WHERE to_day < $last
       ),
       per_day AS (SELECT chain_index, token_index, day, sum(change) AS change FROM changes GROUP BY ALL),
       window_days AS (SELECT unnest(range($first, $last + 1))::INTEGER AS day),
       grid AS (SELECT k.chain_index, k.token_index, w.day FROM (SELECT DISTINCT chain_index, token_index FROM per_day) k CROSS JOIN window_days w),
       balances AS (
         SELECT g.chain_index, g.token_index, g.day, DATE '1970-01-01' + g.day AS date,
                sum(coalesce(p.change, 0)) OVER (PARTITION BY g.chain_index, g.token_index ORDER BY g.day) AS raw
         FROM grid g LEFT JOIN per_day p ON p.chain_index = g.chain_index AND p.token_index = g.token_index AND p.day = g.day
       ),
       priced AS (
         SELECT b.day, b.raw, t.decimals, c.chain_id, b.token_index, b.date FROM balances b
         JOIN chains c ON c.chain_index = b.chain_index
         JOIN tokens t ON t.chain_id = c.chain_id AND t.token_index = b.token_index
       ),
       valued AS (
         SELECT q.day, q.chain_id, q.token_index, ${valueUsdSql('q.raw::DOUBLE / pow(10::DOUBLE, q.decimals)', price.usdPerToken)} AS value
         FROM priced q ${price.join}
       )
       SELECT w.day, v.value
       FROM window_days w LEFT JOIN valued v ON v.day = w.day
       ORDER BY w.day, v.chain_id, v.token_index`,
      { first, last },
    );
    // Each day's values added in one fixed order (chain, then token): a sum of doubles depends on
    // its order, and DuckDB's parallel sum has none, so the same night would not always write the
    // same bytes. A day has one row per chain and token.
    const days: { day: number; total: number }[] = [];
    for (const row of values) {
      if (days.at(-1)?.day !== row.day) days.push({ day: row.day, total: 0 });
      days.at(-1)!.total += row.value ?? 0;
    }
    // A position of the last day is without a price as core/position-value.ts says (no price of
    // its chain and token dated on or before it: usdPerToken 0); and when the export holds no price
    // at all dated on the last day (a price feed that stopped), every position of the day counts:
    // the documents carry the day before's prices forward, so nothing else in the tree shows it. A
    // token that skips a day while the others are priced is carried forward as usual and not counted.
    const lastDayPrice = usdPerTokenOnDaySql('q');
    const [positions] = await db.rows<{ positions: number; without_price: number }>(
      `WITH feed AS (SELECT EXISTS (SELECT 1 FROM prices WHERE date = $last_date::DATE) AS priced_last_day),
       last_day AS (
         SELECT c.chain_id, h.token_index, $last_date::DATE AS date
         FROM night_held h
         JOIN chains c ON c.chain_index = h.chain_index
         JOIN tokens t ON t.chain_id = c.chain_id AND t.token_index = h.token_index
         WHERE h.to_day = $last
       )
       SELECT count(*)::DOUBLE AS positions,
              count(*) FILTER (WHERE NOT feed.priced_last_day OR ${lastDayPrice.withoutPrice})::DOUBLE AS without_price
       FROM feed, last_day q ${lastDayPrice.join}`,
      { last, last_date: lastClosedDay },
    );
    return {
      wallets,
      positions: Number(positions!.positions),
      positionsWithoutPrice: Number(positions!.without_price),
      days: days.map((row) => ({ date: dayText(row.day), totalValueUsd: row.total })),
    };
  } finally {
    await db.run('DROP TABLE night_held');
  }
}

/**
 * Rule (docs/semantics.md#points-history): a wallet is a participant of a season on day d when its points dated <= d add up
 * to more than 0; after the season's day A its standing is A's. The points history holds every
 * wallet-season's running total for each day from its first day to A (its `last_day`,
 * build/compute/points-history.ts): counted per season on the window's days and on A.
 */
export async function participantsByDayOfShards(
  db: Database,
  lastClosedDay: string,
  shards: number,
): Promise<Map<number, Map<number, number[]>>> {
  const last = dayNumber(lastClosedDay);
  const first = last - SUMMARY_DAYS + 1;
  const rows = await db.rows<{ shard: number; season: number; day: number; last_day: number; participants: number }>(
    // Each wallet-season's shard once, not once for each of its days.
    `SELECT h.shard, h.season::INTEGER AS season, t.day, h.last_day, count(*)::DOUBLE AS participants
     FROM history_totals t JOIN (SELECT wallet, season, last_day, ${shardNumberSql(shards, 'address')} AS shard FROM history_wallets) h ON h.wallet = t.wallet
     WHERE ${isParticipantSql('t.total_points')} AND (t.day BETWEEN $first AND $last OR t.day = h.last_day)
     GROUP BY ALL`,
    { first, last },
  );
  // shard -> season -> day -> participants; a season's A is the same for all its wallets.
  const counts = new Map<number, Map<number, { last: number; byDay: Map<number, number> }>>();
  for (const row of rows) {
    const seasons = counts.get(row.shard) ?? new Map<number, { last: number; byDay: Map<number, number> }>();
    const season = seasons.get(row.season) ?? { last: row.last_day, byDay: new Map<number, number>() };
    season.byDay.set(row.day, Number(row.participants));
    seasons.set(row.season, season);
    counts.set(row.shard, seasons);
  }
  const byShard = new Map<number, Map<number, number[]>>();
  for (let shard = 1; shard <= shards; shard++) {
    const bySeason = new Map<number, number[]>();
    for (const [season, { last: seasonLast, byDay }] of counts.get(shard) ?? []) {
      bySeason.set(
        season,
        Array.from({ length: last - first + 1 }, (_, i) => byDay.get(Math.min(first + i, seasonLast)) ?? 0),
      );
    }
    byShard.set(shard, bySeason);
  }
  return byShard;
}

/**
 * An incremental night's counts (computed from its first recomputed day `from` on) completed with
 * the previous night's for the summary's days before `from`: each season's count on day d is the
 * count on min(d, A) (A, the season's day), and on a day before `from` the previous night counted
 * the same rows. `previous`: shard -> its last closed day and its counts, as its folder holds them.
 */
export async function withEarlierCounts(
  db: Database,
  counted: Map<number, Map<number, number[]>>,
  previous: Map<number, { lastClosedDay: string; counts: Map<number, number[]> }>,
  lastClosedDay: string,
  from: number,
): Promise<Map<number, Map<number, number[]>>> {
  const first = dayNumber(lastClosedDay) - SUMMARY_DAYS + 1;
  const seasonDays = new Map(
    (
      await db.rows<{ season: number; day: number | null }>(
        `SELECT season::INTEGER AS season, (day - DATE '1970-01-01')::INTEGER AS day FROM season_days`,
      )
    ).map((row) => [row.season, row.day]),
  );
  const merged = new Map<number, Map<number, number[]>>();
  for (const [shard, before] of previous) {
    const firstBefore = dayNumber(before.lastClosedDay) - SUMMARY_DAYS + 1;
    const now = counted.get(shard) ?? new Map<number, number[]>();
    const bySeason = new Map<number, number[]>();
    for (const season of new Set([...now.keys(), ...before.counts.keys()])) {
      const seasonDay = seasonDays.get(season) ?? null;
      const computed = now.get(season);
      const earlier = before.counts.get(season);
      const counts = Array.from({ length: SUMMARY_DAYS }, (_, i) => {
        const day = seasonDay === null ? first + i : Math.min(first + i, seasonDay);
        if (day >= from) return computed?.[i] ?? 0;
        return earlier?.[Math.max(0, day - firstBefore)] ?? 0;
      });
      if (counts.some((count) => count > 0) || computed) bySeason.set(season, counts);
    }
    merged.set(shard, bySeason);
  }
  return merged;
}
