/**
 * A daily position's value (docs/api.md, the daily portfolio), and which positions are without a
 * price: `usdPerToken` is the `usd_price` of the position's chain and token dated latest on or
 * before the day; with none so dated the position is without a price and `usdPerToken` is 0;
 * `valueUsd = balance * usdPerToken`; a day's `totalValueUsd` is its positions' values added left to
 * right, in position order. A price of 0 is a price: a document's 0 is either (docs/api.md).
 *
 * The rule lives here only, in the forms its users need side by side: TypeScript for the price
 * book the documents are written from (build/compute/daily.ts) and for `verify`
 * (tree/verify-wallet.ts); SQL for the night's summary (build/compute/night-summary.ts) and for
 * where the positions without a price are (build/compute/unpriced.ts), through
 * build/compute/daily-positions.ts, which finds the balance held at a day's end. test/rules.test.ts
 * holds the forms to the same prices, values and positions without a price, and fails on a second
 * spelling elsewhere.
 *
 * The documents' bytes are written by a WebAssembly module (assembly/document-bytes.ts, the build's
 * hottest loop), which cannot import this one: it spells the same rule over the price book made
 * here, and is held to it three ways: test/rules.test.ts runs it on hostile wallets and compares
 * every price, value, total and count with the functions below; every build compares the positions
 * without a price it wrote with those the SQL below finds (build/stages/find-unpriced.ts); and
 * `verify` checks every written value and total (docs/decisions.md, "One place for each rule").
 */

/** `usdPerToken` of a position with no price dated on or before its day. */
export const NO_PRICE = 0;

/** A position's `valueUsd`. */
export function valueUsd(balance: number, usdPerToken: number): number {
  return balance * usdPerToken;
}

/** A day's `totalValueUsd`: its positions' values added in their order (a sum of doubles depends on it). */
export function totalValueUsd(positions: readonly { valueUsd: number }[]): number {
  let total = 0;
  for (const position of positions) total += position.valueUsd;
  return total;
}

/** One (chain, token)'s `usdPerToken` on each day from its first price to the last day: `firstDay`, and the price of day `firstDay + i` at `i`. */
export interface PricesOnDays {
  firstDay: number;
  usdPerToken: Float64Array;
}

/**
 * The `usdPerToken` of each day from the first price of `prices` (one (chain, token)'s, days
 * ascending, none after `lastDay`) to `lastDay`: the price dated latest on or before the day,
 * carried forward over days without one. A day before `firstDay` has none (`isWithoutPrice`).
 */
export function pricesOnDays(prices: readonly { day: number; usdPrice: number }[], lastDay: number): PricesOnDays {
  const firstDay = prices[0]!.day;
  const usdPerToken = new Float64Array(lastDay - firstDay + 1);
  for (let i = 0; i < prices.length; i++) {
    const until = i + 1 < prices.length ? prices[i + 1]!.day : lastDay + 1;
    usdPerToken.fill(prices[i]!.usdPrice, prices[i]!.day - firstDay, until - firstDay);
  }
  return { firstDay, usdPerToken };
}

/** Whether a position on `day` is without a price, its (chain, token)'s first price being dated `firstPriceDay` (null: none). */
export function isWithoutPrice(day: number, firstPriceDay: number | null): boolean {
  return firstPriceDay === null || day < firstPriceDay;
}

/** `usdPerToken` in SQL, from the price found on or before the day (`price`, null when none). */
export function usdPerTokenSql(price: string): string {
  return `coalesce(${price}, ${NO_PRICE})`;
}

/** `valueUsd` in SQL. */
export function valueUsdSql(balance: string, usdPerToken: string): string {
  return `${balance} * ${usdPerToken}`;
}

/**
 * The price of each row of `position` (with `chain_id`, `token_index` and `date`) dated latest on
 * or before its date, from `prices` (rows with the same columns and `usd_price`), joined as `name`:
 * the join (DuckDB's as-of join, to follow the FROM clause), the `usdPerToken` column, and whether
 * the row is without a price.
 */
export function priceOnOrBeforeDaySql(
  position: string,
  prices: string,
  name: string,
): { join: string; usdPerToken: string; withoutPrice: string } {
  return {
    join: `ASOF LEFT JOIN ${prices} ${name}
           ON ${name}.chain_id = ${position}.chain_id AND ${name}.token_index = ${position}.token_index
          AND ${name}.date <= ${position}.date`,
    usdPerToken: usdPerTokenSql(`${name}.usd_price`),
    withoutPrice: `(${name}.date IS NULL)`,
  };
}

/** `isWithoutPrice` in SQL, over expressions of day numbers. */
export function isWithoutPriceSql(day: string, firstPriceDay: string): string {
  return `(${firstPriceDay} IS NULL OR ${day} < ${firstPriceDay})`;
}

/**
 * `isWithoutPrice` over the days `from..to` of a held balance, in SQL: the last of them without a
 * price (those before `firstPriceDay`, null: none), less than `from` when there is none.
 */
export function lastDayWithoutPriceSql(to: string, firstPriceDay: string): string {
  return `least(${to}, coalesce(${firstPriceDay} - 1, ${to}))`;
}
