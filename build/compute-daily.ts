/**
 * SPEC 3.3 (daily portfolio). SQL supplies what is shared by every wallet (the table's `asOf`
 * and the carried-forward prices); the days of one wallet are expanded here, on a document thread,
 * from the wallet's snapshots, because every closed day from its first day on is a row:
 * expanding them in SQL would multiply the rows by ~365 only to stream them back.
 */
import type { Database } from './database.ts';
import { UserError } from './errors.ts';
import { tokenIndexSql, type TokenSeries } from './compute-history.ts';
import { dayNumber, dayText } from './days.ts';
import { TOKEN_KEYS } from '../schemas/token-keys.ts';

/**
 * `asOf` is the same for every wallet: the last closed day `L` when at least one wallet has a
 * row (its first snapshot is dated on or before `L`), else null.
 */
export async function computeDailyAsOf(db: Database, lastClosedDay: string): Promise<string | null> {
  const [row] = await db.rows<{ any_closed: boolean }>(
    'SELECT coalesce(min(day) <= $last, false) AS any_closed FROM snapshots',
    { last: dayNumber(lastClosedDay) },
  );
  return row!.any_closed ? lastClosedDay : null;
}

/** `usdPerToken` of one (chain, token) for every day from its first price to `L`, carried forward. */
interface PriceSeries {
  firstDay: number;
  values: Float64Array;
  texts: string[];
}

export type PriceBook = Map<string, PriceSeries>;

const priceKey = (chainId: string, tokenIndex: number) => `${chainId}:${tokenIndex}`;

/**
 * "The latest price date <= d": prices dated after `L` can never be used. The book is bounded by
 * chains x tokens x days, not by wallets, so it is held in memory.
 */
export async function loadPriceBook(db: Database, lastClosedDay: string): Promise<PriceBook> {
  const last = dayNumber(lastClosedDay);
  const rows = await db.rows<{ chain_text: string; token_index: number; day: number; usd_price: number }>(
    `SELECT chain_id::VARCHAR AS chain_text, ${tokenIndexSql('token')}::INTEGER AS token_index,
            (date - DATE '1970-01-01')::INTEGER AS day, usd_price
     FROM prices WHERE date <= $last::DATE
     ORDER BY chain_id, token_index, date`,
    { last: lastClosedDay },
  );
  const book: PriceBook = new Map();
  for (let i = 0; i < rows.length; ) {
    const { chain_text, token_index, day: firstDay } = rows[i]!;
    const length = last - firstDay + 1;
    const series: PriceSeries = { firstDay, values: new Float64Array(length), texts: new Array<string>(length) };
    for (; i < rows.length && rows[i]!.chain_text === chain_text && rows[i]!.token_index === token_index; i++) {
      const row = rows[i]!;
      const next = rows[i + 1];
      const until = next && next.chain_text === chain_text && next.token_index === token_index ? next.day : last + 1;
      const text = String(row.usd_price);
      for (let day = row.day; day < until; day++) {
        series.values[day - firstDay] = row.usd_price;
        series.texts[day - firstDay] = text;
      }
    }
    book.set(priceKey(chain_text, token_index), series);
  }
  return book;
}

export interface DailyStats {
  /** Position rows (wallet x day x chain x token) that had no price on or before their day. */
  positionsWithoutPrice: number;
}

/**
 * 3.3's document for one wallet: a row for every day from the wallet's first snapshot day `D0`
 * to `L` (no gaps, also all-zero days), each listing the (chain, token) whose end-of-day balance
 * is not zero, in chain then token-key order (the order the series arrive in).
 */
export function dailyDocument(
  series: TokenSeries[],
  asOf: string | null,
  lastDay: number,
  prices: PriceBook,
  stats: DailyStats,
): string {
  let json = `{"asOf":${asOf === null ? 'null' : `"${asOf}"`},"days":[`;
  let firstDay = Infinity;
  for (const one of series) for (const day of one.days) if (day < firstDay) firstDay = day;
  if (asOf === null || firstDay > lastDay) return `${json}]}`;

  const cursors = series.map(endOfDayCursor);
  const priceSeries = series.map((one) => prices.get(priceKey(one.chainId, one.tokenIndex)));
  // Held per series and rebuilt only when its end-of-day balance changes.
  const prefixes: (string | null)[] = series.map(() => null);
  const amounts = new Float64Array(series.length);

  for (let day = firstDay; day <= lastDay; day++) {
    let positions = '';
    let total = 0;
    for (let j = 0; j < series.length; j++) {
      const one = series[j]!;
      const changed = cursors[j]!.advanceTo(day);
      if (changed !== -1) {
        const balance = one.balances[changed]!;
        prefixes[j] = balance === '0'
          ? null
          : `{"token":"${TOKEN_KEYS[one.tokenIndex]}","chainId":${one.chainId},"balance":${balance},"usdPerToken":`;
        amounts[j] = Number(balance);
      }
      const prefix = prefixes[j];
      if (prefix === null) continue;
      const price = priceSeries[j];
      let usdPerToken = 0;
      let priceText = '0';
      if (price !== undefined && day >= price.firstDay) {
        usdPerToken = price.values[day - price.firstDay]!;
        priceText = price.texts[day - price.firstDay]!;
      } else {
        stats.positionsWithoutPrice++;
      }
      const valueUsd = amounts[j]! * usdPerToken;
      if (!Number.isFinite(valueUsd)) {
        throw new UserError(`prices.parquet: column "usd_price": 1 row, ${priceText} times a balance of ${amounts[j]} overflows a JSON number`);
      }
      // The plain left-to-right sum, in position order: a client adding up the listed values
      // gets exactly totalValueUsd.
      total += valueUsd;
      positions += `${positions === '' ? '' : ','}${prefix}${priceText},"valueUsd":${valueUsd}}`;
    }
    json += `${day === firstDay ? '' : ','}{"date":"${dayText(day)}","totalValueUsd":${total},"positions":[${positions}]}`;
  }
  return `${json}]}`;
}

/**
 * End-of-day balance on `d` = the last snapshot (in transaction order) dated on or before `d`.
 * Days rise with the order on any real chain; the sort keeps the rule exact even when an export's
 * timestamps do not.
 */
function endOfDayCursor(one: TokenSeries) {
  const order = one.days.map((_, k) => k);
  if (!isAscending(one.days)) order.sort((a, b) => one.days[a]! - one.days[b]! || a - b);
  let next = 0;
  let latest = -1;
  return {
    /** The snapshot index that now decides the balance, or -1 when that did not change. */
    advanceTo(day: number): number {
      const before = latest;
      while (next < order.length && one.days[order[next]!]! <= day) {
        latest = Math.max(latest, order[next]!);
        next++;
      }
      return latest === before ? -1 : latest;
    },
  };
}

function isAscending(values: number[]): boolean {
  for (let i = 1; i < values.length; i++) if (values[i]! < values[i - 1]!) return false;
  return true;
}
