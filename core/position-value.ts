/**
 * A daily position's value (docs/api.md, the daily portfolio): `usdPerToken` is the price of the
 * position's chain and token dated latest on or before the day, 0 when there is none;
 * `valueUsd = balance * usdPerToken`; a day's `totalValueUsd` is its positions' values added left
 * to right, in position order. Here in the forms its users can import: JavaScript for `verify`
 * (tree/verify-wallet.ts), SQL for the night's summary (build/compute/night-summary.ts). Which
 * price is on or before a day, and which balance is held at a day's end, are found in SQL by
 * build/compute/daily-positions.ts.
 *
 * The documents' own bytes are written by a WebAssembly module (assembly/document-bytes.ts, the
 * build's hottest loop), which cannot import this one: it spells the same rule, and two checks
 * hold it to this module's: every build compares the positions without a price it wrote with
 * those the SQL of build/compute/daily-positions.ts finds (build/stages/find-unpriced.ts), and `verify` checks every written
 * position and day with the functions below (docs/decisions.md, "One place for each rule").
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

/** `usdPerToken` in SQL, from the price found on or before the day (`price`, null when none). */
export function usdPerTokenSql(price: string): string {
  return `coalesce(${price}, ${NO_PRICE})`;
}

/** `valueUsd` in SQL. */
export function valueUsdSql(balance: string, usdPerToken: string): string {
  return `${balance} * ${usdPerToken}`;
}
