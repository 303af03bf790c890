/**
 * The shapes a wallet's data takes between the compute stage, which decides what its documents
 * hold, and the write stage, which lays them out in bytes: kept apart so that neither imports the
 * other for them.
 */

/** A wallet's snapshots of one token on one chain, oldest first. */
export interface TokenSeries {
  chainId: string;
  tokenIndex: number;
  days: number[];
  timestamps: number[];
  balances: string[];
}

/** `usdPerToken` of one (chain, token) for every day from its first price to `L`, carried forward. */
interface PriceSeries {
  firstDay: number;
  values: Float64Array;
  texts: string[];
}

export type PriceBook = Map<string, PriceSeries>;

export const priceKey = (chainId: string, tokenIndex: number) => `${chainId}:${tokenIndex}`;

/** Where a document goes, piece by piece. */
export interface DocumentSink {
  text(value: string): void;
  bytes(value: Uint8Array): void;
}

/** A (chain, token) series of end-of-day balances: from `days[k]` on, the balance is `balances[k]`. */
export interface EndOfDaySeries {
  chainId: string;
  tokenIndex: number;
  days: ArrayLike<number>;
  balances: string[];
}
