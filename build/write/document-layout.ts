/**
 * The byte layout that build/write/document-bytes.ts writes a wallet's data in and the WebAssembly
 * module (assembly/document-bytes.ts) reads it from: one table, imported by both sides, so that
 * neither can move a field without the other. Offsets are in bytes, values little-endian. Plain
 * integer constants only: the same text compiles as TypeScript and as AssemblyScript.
 */

/** A series (one chain and token of the wallet): where its prefix, prices and snapshots are. */
export const SERIES_SIZE = 16;
/** u32: its prefix (`PREFIX_*`). */
export const SERIES_PREFIX = 0;
/** u32: its price series (`PRICES_*`), 0 when it has none. */
export const SERIES_PRICES = 4;
/** i32: how many snapshots. */
export const SERIES_COUNT = 8;
/** u32: its first snapshot (`SNAPSHOT_*`), the others following. */
export const SERIES_SNAPSHOTS = 12;

/** A snapshot (or an end-of-day entry of a series rewritten in day order). */
export const SNAPSHOT_SIZE = 32;
/** i32: its New York day. */
export const SNAPSHOT_DAY = 0;
/** u32: its balance's exact decimal text, which its series' prefix text precedes. */
export const SNAPSHOT_TEXT = 4;
/** u32: that text's length. */
export const SNAPSHOT_TEXT_LENGTH = 8;
/** u32: 1 when the balance is zero (no position that day). */
export const SNAPSHOT_IS_ZERO = 12;
/** f64: the balance as a double, for the values. */
export const SNAPSHOT_AMOUNT = 16;
/** f64: the Unix time (history documents only). */
export const SNAPSHOT_TIMESTAMP = 24;

/** A price series: its first day, its day count, then one slot per day. */
export const PRICES_FIRST_DAY = 0;
export const PRICES_DAYS = 4;
export const PRICES_SLOTS = 8;
/** A price slot: the price f64, its text's length u8, the text `,"usdPerToken":<price>,"valueUsd":`. */
export const PRICE_SLOT_SIZE = 64;
export const PRICE_SLOT_VALUE = 0;
export const PRICE_SLOT_TEXT_LENGTH = 8;
export const PRICE_SLOT_TEXT = 9;

/** A prefix: its length u8, then `{"token":"<key>","chainId":<id>,"balance":`. */
export const PREFIX_LENGTH = 0;
export const PREFIX_TEXT = 1;

/** Per series while one call writes days: a cursor (i32), the day's value (f64) and price slot (u32). */
export const CURSOR_SIZE = 4;
export const SCRATCH_VALUE_SIZE = 8;
export const SCRATCH_SLOT_SIZE = 4;
