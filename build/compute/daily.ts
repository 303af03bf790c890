/**
 * The daily portfolio (GET /v1/address/{address}/portfolio/daily): what SQL supplies for every
 * wallet alike, the carried-forward prices (the table's `asOf` is a fact of the whole export,
 * export-facts.ts). The days of one wallet are expanded by the write stage
 * (build/write/daily-document.ts) from the wallet's snapshots.
 */
import type { Database } from '../database.ts';
import { tokenIndexSql } from './series-key.ts';
import { dayNumber } from './days.ts';
import { priceKey, type PriceBook } from './wallet-series.ts';
import { pricesOnDays } from '../../core/position-value.ts';

/**
 * Each chain and token's `usdPerToken` on every day from its first price to `L`
 * (core/position-value.ts): prices dated after `L` can never be used. The book is bounded by
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
    const { chain_text, token_index } = rows[i]!;
    const prices: { day: number; usdPrice: number }[] = [];
    for (; i < rows.length && rows[i]!.chain_text === chain_text && rows[i]!.token_index === token_index; i++) {
      prices.push({ day: rows[i]!.day, usdPrice: rows[i]!.usd_price });
    }
    // Each day's price as core/position-value.ts finds it; the days before the first have none.
    const { firstDay, usdPerToken } = pricesOnDays(prices, last);
    book.set(priceKey(chain_text, token_index), { firstDay, values: usdPerToken, texts: Array.from(usdPerToken, String) });
  }
  return book;
}
