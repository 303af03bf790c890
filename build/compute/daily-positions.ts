/**
 * The daily portfolio's positions in SQL (docs/api.md, the daily portfolio), for the queries that
 * look at many wallets' days at once: the night's summary (night-summary.ts) and where the
 * positions without a price are (unpriced.ts). The documents expand each wallet's days on a
 * document thread instead (build/write/daily-document.ts, its price book in daily.ts); a position's
 * value is core/position-value.ts.
 *
 * End of day: a series' balance at the end of day d is that of its latest snapshot in transaction
 * order dated on or before d (exact even when a later transaction carries an earlier day); it
 * holds until the next day with a snapshot, or L. A position is a day whose balance is not 0.
 */
import { priceOnOrBeforeDaySql } from '../../core/position-value.ts';
import { tokenIndexSql } from './series-key.ts';

/**
 * The last snapshot of each series on each day with one, from snapshots `s` (`from`, a FROM clause
 * naming them `s`) that `where` keeps: `series`, `day`, its transaction `number` and balance `raw`.
 */
export function lastSnapshotOfDaySql(from: string, where: string): string {
  return `
      SELECT s.series, s.day, max(s.number) AS number, arg_max(s.raw_balance, s.number) AS raw
      FROM ${from}
      WHERE ${where}
      GROUP BY s.series, s.day`;
}

/**
 * Each series' balance held from the end of `from_day` to the end of `to_day` (`$last`, L, for
 * the latest), from `days`, rows of `lastSnapshotOfDaySql`: a running arg_max over its days, so
 * that a day's snapshot of an earlier transaction than one dated before it changes nothing.
 */
export function heldBalancesSql(days: string): string {
  return `
      SELECT series, day AS from_day,
             coalesce(lead(day) OVER in_days - 1, $last) AS to_day,
             arg_max(raw, number) OVER (in_days ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS raw
      FROM ${days}
      WINDOW in_days AS (PARTITION BY series ORDER BY day)`;
}

/**
 * `usdPerToken` of each row of `position` (with `chain_id`, `token_index` and `date`) from the
 * table `prices`, as core/position-value.ts finds it, joined as `name`: the join, to follow the FROM
 * clause, the column, and whether the row is without a price.
 */
export function usdPerTokenOnDaySql(position: string, name = 'p'): { join: string; usdPerToken: string; withoutPrice: string } {
  return priceOnOrBeforeDaySql(position, `(SELECT chain_id, ${tokenIndexSql('token')} AS token_index, date, usd_price FROM prices)`, name);
}

/**
 * Each chain (by its index) and token's first price day (a day number) among the prices dated on
 * or before `$last_date`: which of its positions are without a price follows from it
 * (core/position-value.ts, `isWithoutPrice`).
 */
export const FIRST_PRICE_DAYS_SQL = `
      SELECT c.chain_index, ${tokenIndexSql('p.token')} AS token_index, min(p.date - DATE '1970-01-01')::INTEGER AS first_day
      FROM prices p JOIN chains c ON c.chain_id = p.chain_id
      WHERE p.date <= $last_date::DATE GROUP BY ALL`;
