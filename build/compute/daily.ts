/**
 * The daily portfolio (GET /v1/address/{address}/portfolio/daily): what SQL supplies for every
 * wallet alike, the carried-forward prices (the table's `asOf` is a fact of the whole export,
 * export-facts.ts). The days of one wallet are expanded by the write stage
 * (build/write/daily-document.ts) from the wallet's snapshots.
 */
import type { Database } from '../database.ts';
import { tokenIndexSql } from './series-key.ts';
import { dayNumber } from './days.ts';
import { priceKey, type PriceBook, type PriceSeries } from './wallet-series.ts';

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
