/**
 * The bulk of each wallet's two documents, written as bytes into this module's memory: the day
 * rows of the daily document (SPEC 3.3; at 100k wallets about 60 million positions, the build's
 * hottest loop) and the snapshot arrays of the history document (3.2). Written in JavaScript they
 * spent most of their time joining strings and collecting them; here every piece is copied once.
 * build/document-bytes.ts lays out the input and reads the output (the layout is described
 * there); what the documents hold is decided in build/compute-daily.ts and compute-history.ts.
 * Compiled by `npm run wasm` into build/document-bytes.wasm (committed).
 */
import { dtoa_buffered } from 'util/number';

// Per series (16 bytes): prefix offset, price series offset (0: no price), event count, events offset.
// Per event (32 bytes): day i32, balance text offset u32, balance text length u32, 1 when the
// balance is zero u32, amount f64, timestamp f64.
// Per price series: first day i32, day count i32, then per day a 32-byte slot: value f64, text length u8, text.
// Per prefix: length u8, then `{"token":"<key>","chainId":<id>,"balance":`.

/** Where the caller may start laying out its data: above this module's constants. */
export function dataStart(): usize {
  return __heap_base;
}

/** Positions that had no price on or before their day, counted over every call. */
export let positionsWithoutPrice: u32 = 0;
/** Set when a value is not finite: the series and the day (the caller reports them). */
export let failedSeries: i32 = -1;
export let failedDay: i32 = 0;

const DATE_HEAD = '{"date":"';
const TOTAL_HEAD = '","totalValueUsd":';
const POSITIONS_HEAD = ',"positions":[';
const PRICE_HEAD = ',"usdPerToken":';
const VALUE_HEAD = ',"valueUsd":';

/**
 * Writes the rows of days `firstDay..lastDay` (comma-separated, no brackets) at `out` and returns
 * their length, or -1 when a value is not finite. `scratch` holds one day's positions while the
 * day's total is summed, and `cursors` one i32 per series.
 */
export function writeDays(series: usize, seriesCount: i32, firstDay: i32, lastDay: i32, out: usize, scratch: usize, cursors: usize): i32 {
  for (let j = 0; j < seriesCount; j++) store<i32>(cursors + (<usize>j << 2), -1);
  let o = out;
  for (let day = firstDay; day <= lastDay; day++) {
    let p = scratch;
    let total: f64 = 0;
    for (let j = 0; j < seriesCount; j++) {
      const s = series + (<usize>j << 4);
      const count = load<i32>(s, 8);
      const events = <usize>load<u32>(s, 12);
      // End-of-day balance: the last event dated on or before the day.
      let cursor = load<i32>(cursors + (<usize>j << 2));
      while (cursor + 1 < count && load<i32>(events + (<usize>(cursor + 1) << 5)) <= day) cursor++;
      store<i32>(cursors + (<usize>j << 2), cursor);
      if (cursor < 0) continue;
      const event = events + (<usize>cursor << 5);
      if (load<u32>(event, 12) != 0) continue;
      const balanceLength = load<u32>(event, 8);
      const amount = load<f64>(event, 16);
      const prices = <usize>load<u32>(s, 4);
      let price: f64 = 0;
      let priceText: usize = 0;
      if (prices != 0 && day >= load<i32>(prices)) {
        priceText = prices + 8 + (<usize>(day - load<i32>(prices)) << 5);
        price = load<f64>(priceText);
      } else {
        positionsWithoutPrice++;
      }
      const value = amount * price;
      if (!isFinite(value)) {
        failedSeries = j;
        failedDay = day;
        return -1;
      }
      // The plain left-to-right sum, in position order, as build/compute-daily.ts documents.
      total += value;
      if (p != scratch) p = byte(p, 0x2c);
      const prefix = <usize>load<u32>(s);
      p = copy(p, prefix + 1, load<u8>(prefix));
      p = copy(p, <usize>load<u32>(event, 4), balanceLength);
      p = text(p, PRICE_HEAD);
      if (priceText != 0) p = copy(p, priceText + 9, load<u8>(priceText, 8));
      else p = byte(p, 0x30);
      p = text(p, VALUE_HEAD);
      p = number(p, value);
      p = byte(p, 0x7d);
    }
    if (day != firstDay) o = byte(o, 0x2c);
    o = text(o, DATE_HEAD);
    o = date(o, day);
    o = text(o, TOTAL_HEAD);
    o = number(o, total);
    o = text(o, POSITIONS_HEAD);
    o = copy(o, scratch, <u32>(p - scratch));
    o = byte(o, 0x5d);
    o = byte(o, 0x7d);
  }
  return <i32>(o - out);
}

const SNAPSHOT_HEAD = '{"date":"';
const TIMESTAMP_HEAD = '","timestamp":';
const BALANCE_HEAD = ',"balance":';

/**
 * Writes the snapshots of one series, `{"date":..,"timestamp":..,"balance":..}` comma-separated,
 * at `out` and returns their length.
 */
export function writeSnapshots(events: usize, count: i32, out: usize): i32 {
  let o = out;
  for (let k = 0; k < count; k++) {
    const event = events + (<usize>k << 5);
    if (k != 0) o = byte(o, 0x2c);
    o = text(o, SNAPSHOT_HEAD);
    o = date(o, load<i32>(event));
    o = text(o, TIMESTAMP_HEAD);
    o = integer(o, <i64>load<f64>(event, 24));
    o = text(o, BALANCE_HEAD);
    o = copy(o, <usize>load<u32>(event, 4), load<u32>(event, 8));
    o = byte(o, 0x7d);
  }
  return <i32>(o - out);
}

// @ts-ignore: decorator
@inline function byte(at: usize, value: u8): usize {
  store<u8>(at, value);
  return at + 1;
}

// @ts-ignore: decorator
@inline function copy(at: usize, from: usize, length: u32): usize {
  memory.copy(at, from, length);
  return at + length;
}

/** An ASCII constant. */
function text(at: usize, value: string): usize {
  const length = value.length;
  const from = changetype<usize>(value);
  for (let i = 0; i < length; i++) store<u8>(at + i, load<u8>(from + (<usize>i << 1)));
  return at + length;
}

const digits = memory.data(32 * 2);

/** `number` on its own, for the tests: writes `value` at `at` and returns the length. */
export function formatNumber(at: usize, value: f64): i32 {
  return <i32>(number(at, value) - at);
}

/** `date` on its own, for the tests. */
export function formatDate(at: usize, day: i32): void {
  date(at, day);
}

/**
 * A finite double as JSON text that reads back as the same double (Grisu2: the shortest digits in
 * all but rare cases, where it gives a longer exact-reading form). Integers print without ".0",
 * and zero as "0", as in JavaScript.
 */
function number(at: usize, value: f64): usize {
  if (value == 0) return byte(at, 0x30);
  let length = dtoa_buffered(digits, value);
  if (length >= 2 && load<u16>(digits + ((<usize>length - 1) << 1)) == 0x30 && load<u16>(digits + ((<usize>length - 2) << 1)) == 0x2e) length -= 2;
  for (let i: u32 = 0; i < length; i++) store<u8>(at + i, <u8>load<u16>(digits + (<usize>i << 1)));
  return at + length;
}

/** An integer in decimal, as JavaScript writes an integral double. */
function integer(at: usize, value: i64): usize {
  if (value < 0) {
    at = byte(at, 0x2d);
    value = -value;
  }
  let digits = 1;
  for (let rest = value / 10; rest != 0; rest /= 10) digits++;
  for (let i = digits - 1; i >= 0; i--) {
    store<u8>(at + i, <u8>(0x30 + value % 10));
    value /= 10;
  }
  return at + digits;
}

/** `YYYY-MM-DD` of a day number (days since 1970-01-01), proleptic Gregorian. */
function date(at: usize, day: i32): usize {
  // Howard Hinnant's civil_from_days.
  const z = day + 719468;
  const era = (z >= 0 ? z : z - 146096) / 146097;
  const doe = z - era * 146097;
  const yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const mp = (5 * doy + 2) / 153;
  const d = doy - (153 * mp + 2) / 5 + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  store<u8>(at, <u8>(0x30 + y / 1000));
  store<u8>(at, <u8>(0x30 + (y / 100) % 10), 1);
  store<u8>(at, <u8>(0x30 + (y / 10) % 10), 2);
  store<u8>(at, <u8>(0x30 + y % 10), 3);
  store<u8>(at, 0x2d, 4);
  store<u8>(at, <u8>(0x30 + m / 10), 5);
  store<u8>(at, <u8>(0x30 + m % 10), 6);
  store<u8>(at, 0x2d, 7);
  store<u8>(at, <u8>(0x30 + d / 10), 8);
  store<u8>(at, <u8>(0x30 + d % 10), 9);
  return at + 10;
}
