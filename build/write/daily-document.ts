/**
 * Write stage: the bytes of a wallet's daily portfolio document (GET /v1/address/{a}/portfolio/daily)
 * from its snapshots and the price book compute/daily.ts made. The days of one wallet are expanded
 * here, on a document thread: every closed day from its first day on is a row, and expanding them
 * in SQL would multiply the rows by ~365 only to stream them back.
 */
import { UserError } from '../../core/errors.ts';
import { priceKey, type DocumentSink, type EndOfDaySeries, type PriceBook, type TokenSeries } from '../compute/wallet-series.ts';
import type { DocumentBytes } from './document-bytes.ts';
import { dayText } from '../compute/days.ts';

export interface DailyStats {
  /** Position rows (wallet x day x chain x token) that had no price on or before their day. */
  positionsWithoutPrice: number;
}

/**
 * The daily portfolio document of one wallet: a row for every day from the wallet's first snapshot
 * day `D0` to `L` (no gaps, also all-zero days), each listing the (chain, token) whose end-of-day
 * balance is not zero, in chain then token-key order (the order the series arrive in). A position's
 * `usdPerToken` is the price series' value on its day (carried forward, see loadPriceBook), 0 and
 * counted when the series starts later or does not exist; `valueUsd = balance * usdPerToken`;
 * `totalValueUsd` is the plain left-to-right sum of the day's values in position order, so a client
 * adding up the listed values gets it exactly. The rows are written by `bytes`
 * (build/write/document-bytes.ts, a WebAssembly module) from the end-of-day balances prepared here.
 */
export function dailyDocument(
  series: TokenSeries[],
  asOf: string | null,
  lastDay: number,
  bytes: DocumentBytes,
  prices: PriceBook,
  stats: DailyStats,
  out: DocumentSink,
): void {
  out.text(`{"asOf":${asOf === null ? 'null' : `"${asOf}"`},"days":[`);
  let firstDay = Infinity;
  for (const one of series) for (const day of one.days) if (day < firstDay) firstDay = day;
  if (asOf !== null && firstDay <= lastDay) {
    const endOfDay = series.map(endOfDaySeries);
    const written = bytes.dayRows(endOfDay, firstDay, lastDay);
    if ('failedSeries' in written && written.failedSeries === endOfDay.length) {
      throw new UserError(
        `prices.parquet: column "usd_price": the values of one wallet's positions on ${dayText(written.failedDay)} add up beyond the largest JSON number`,
      );
    }
    if ('failedSeries' in written) {
      const one = endOfDay[written.failedSeries]!;
      const price = prices.get(priceKey(one.chainId, one.tokenIndex))!;
      const priceText = price.texts[written.failedDay - price.firstDay];
      let k = 0;
      while (k + 1 < one.days.length && one.days[k + 1]! <= written.failedDay) k++;
      throw new UserError(
        `prices.parquet: column "usd_price": 1 row, ${priceText} times a balance of ${Number(one.balances[k])} overflows a JSON number`,
      );
    }
    stats.positionsWithoutPrice += written.withoutPrice;
    out.bytes(written.rows);
  }
  out.text(']}');
}

/**
 * End-of-day balance on `d` = the last snapshot (in transaction order) dated on or before `d`.
 * Days rise with the order on any real chain, and then the snapshots are the series as they are;
 * otherwise the series is rewritten in day order, each entry holding the latest snapshot (in
 * transaction order) among those dated on or before its day, which keeps the rule exact.
 */
function endOfDaySeries(one: TokenSeries): EndOfDaySeries {
  if (isAscending(one.days)) return one;
  const order = one.days.map((_, k) => k).sort((a, b) => one.days[a]! - one.days[b]! || a - b);
  const days: number[] = [];
  const balances: string[] = [];
  let latest = -1;
  for (const k of order) {
    latest = Math.max(latest, k);
    days.push(one.days[k]!);
    balances.push(one.balances[latest]!);
  }
  return { chainId: one.chainId, tokenIndex: one.tokenIndex, days, balances };
}

function isAscending(values: number[]): boolean {
  for (let i = 1; i < values.length; i++) if (values[i]! < values[i - 1]!) return false;
  return true;
}
