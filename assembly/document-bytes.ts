/**
 * The bulk of each wallet's documents, written as bytes into this module's memory: the day rows
 * of the daily document (at 100k wallets about 60 million positions, the build's hottest loop),
 * the snapshot arrays of the history document, and the day rows of each points history. Written in JavaScript they spent most of their time
 * joining strings and collecting them; here every piece is copied once.
 * build/write/document-bytes.ts lays out the input (in the layout of build/write/document-layout.ts)
 * and reads the output; what the documents hold is decided in build/write/daily-document.ts and
 * build/compute/history.ts. Compiled by `npm run wasm` into build/write/document-bytes.wasm
 * (committed).
 */
import { writeInteger, writeNumber } from './number-text';
import {
  SERIES_SIZE, SERIES_PREFIX, SERIES_PRICES, SERIES_COUNT, SERIES_SNAPSHOTS,
  SNAPSHOT_SIZE, SNAPSHOT_DAY, SNAPSHOT_TEXT, SNAPSHOT_TEXT_LENGTH, SNAPSHOT_IS_ZERO, SNAPSHOT_AMOUNT, SNAPSHOT_TIMESTAMP,
  PRICES_FIRST_DAY, PRICES_SLOTS, PRICE_SLOT_SIZE, PRICE_SLOT_VALUE, PRICE_SLOT_TEXT_LENGTH, PRICE_SLOT_TEXT,
  PREFIX_LENGTH, CURSOR_SIZE, SCRATCH_VALUE_SIZE, SCRATCH_SLOT_SIZE,
} from '../build/write/document-layout';

// The layout of the input is build/write/document-layout.ts, shared with the side that writes it.
// A series' prefix is written again right before each balance text, so that a position's opening
// is one copy.

/** Where the caller may start laying out its data: above this module's constants. */
export function dataStart(): usize {
  return __heap_base;
}

/** Positions that had no price on or before their day, counted over every call. */
export let positionsWithoutPrice: u32 = 0;
/** Set when a value is not finite: the series and the day (the caller reports them). */
export let failedSeries: i32 = -1;
export let failedDay: i32 = 0;

/** The fixed pieces of JSON, as bytes copied eight at a time (see `piece`). */
const PIECES = memory.data(256);
let piecesEnd = PIECES;
/**
 * Copies an ASCII constant into PIECES: its length byte, then its text, padded to eight bytes
 * (`piece` reads whole words, a few bytes past the text but never past PIECES).
 */
function constant(value: string): usize {
  const at = piecesEnd;
  store<u8>(at, <u8>value.length);
  for (let i = 0; i < value.length; i++) store<u8>(at + 1 + i, <u8>value.charCodeAt(i));
  piecesEnd += (<usize>value.length + 1 + 7) & ~7;
  return at;
}
const DATE_HEAD = constant('{"date":"');
const TOTAL_HEAD = constant('","totalValueUsd":');
const POSITIONS_HEAD = constant(',"positions":[');
const NO_PRICE = constant(',"usdPerToken":0,"valueUsd":');
const SNAPSHOT_HEAD = constant('{"date":"');
const TIMESTAMP_HEAD = constant('","timestamp":');
const BALANCE_HEAD = constant(',"balance":');
const POINTS_HEAD = constant('","points":');
const TOTAL_POINTS_HEAD = constant(',"totalPoints":');
const RANK_HEAD = constant(',"rank":');
const NULL = constant('null');

/**
 * Writes the rows of days `firstDay..lastDay` (comma-separated, no brackets) at `out` and returns
 * their length, or -1 when a value is not finite. `cursors` holds one i32 per series, and
 * `scratch` one day's values (f64 per series, -1 for no position) and price slots (u32 per series).
 */
export function writeDays(series: usize, seriesCount: i32, firstDay: i32, lastDay: i32, out: usize, scratch: usize, cursors: usize): i32 {
  for (let j = 0; j < seriesCount; j++) store<i32>(cursors + <usize>j * CURSOR_SIZE, -1);
  const slots = scratch + <usize>seriesCount * SCRATCH_VALUE_SIZE;
  let o = out;
  for (let day = firstDay; day <= lastDay; day++) {
    // The day's values first: the total comes before the positions.
    let total: f64 = 0;
    for (let j = 0; j < seriesCount; j++) {
      const s = series + <usize>j * SERIES_SIZE;
      const count = load<i32>(s + SERIES_COUNT);
      const events = <usize>load<u32>(s + SERIES_SNAPSHOTS);
      // End-of-day balance: the last event dated on or before the day.
      let cursor = load<i32>(cursors + <usize>j * CURSOR_SIZE);
      while (cursor + 1 < count && load<i32>(events + <usize>(cursor + 1) * SNAPSHOT_SIZE + SNAPSHOT_DAY) <= day) cursor++;
      store<i32>(cursors + <usize>j * CURSOR_SIZE, cursor);
      const value = scratch + <usize>j * SCRATCH_VALUE_SIZE;
      if (cursor < 0 || load<u32>(events + <usize>cursor * SNAPSHOT_SIZE + SNAPSHOT_IS_ZERO) != 0) {
        store<f64>(value, -1);
        continue;
      }
      const prices = <usize>load<u32>(s + SERIES_PRICES);
      let price: f64 = 0;
      let slot: usize = 0;
      if (prices != 0 && day >= load<i32>(prices + PRICES_FIRST_DAY)) {
        slot = prices + PRICES_SLOTS + <usize>(day - load<i32>(prices + PRICES_FIRST_DAY)) * PRICE_SLOT_SIZE;
        price = load<f64>(slot + PRICE_SLOT_VALUE);
      } else {
        positionsWithoutPrice++;
      }
      const amount = load<f64>(events + <usize>cursor * SNAPSHOT_SIZE + SNAPSHOT_AMOUNT);
      const product = amount * price;
      if (!isFinite(product)) {
        failedSeries = j;
        failedDay = day;
        return -1;
      }
      // The plain left-to-right sum, in position order, as build/write/daily-document.ts documents (`dailyDocument`).
      total += product;
      store<f64>(value, product);
      store<u32>(slots + <usize>j * SCRATCH_SLOT_SIZE, <u32>slot);
    }
    // Finite values may still add up beyond the largest double: reported as series `seriesCount`.
    if (!isFinite(total)) {
      failedSeries = seriesCount;
      failedDay = day;
      return -1;
    }
    if (day != firstDay) o = byte(o, 0x2c);
    o = piece(o, DATE_HEAD);
    o = date(o, day);
    o = piece(o, TOTAL_HEAD);
    o = writeNumber(o, total);
    o = piece(o, POSITIONS_HEAD);
    let first = true;
    for (let j = 0; j < seriesCount; j++) {
      const value = load<f64>(scratch + <usize>j * SCRATCH_VALUE_SIZE);
      if (value < 0) continue;
      if (!first) o = byte(o, 0x2c);
      first = false;
      const s = series + <usize>j * SERIES_SIZE;
      const event = <usize>load<u32>(s + SERIES_SNAPSHOTS) + <usize>load<i32>(cursors + <usize>j * CURSOR_SIZE) * SNAPSHOT_SIZE;
      // The prefix sits right before the balance text.
      const prefixLength = <u32>load<u8>(<usize>load<u32>(s + SERIES_PREFIX) + PREFIX_LENGTH);
      o = copy(o, <usize>load<u32>(event + SNAPSHOT_TEXT) - prefixLength, prefixLength + load<u32>(event + SNAPSHOT_TEXT_LENGTH));
      const slot = <usize>load<u32>(slots + <usize>j * SCRATCH_SLOT_SIZE);
      o = slot != 0 ? copy(o, slot + PRICE_SLOT_TEXT, load<u8>(slot + PRICE_SLOT_TEXT_LENGTH)) : piece(o, NO_PRICE);
      o = writeNumber(o, value);
      o = byte(o, 0x7d);
    }
    o = byte(o, 0x5d);
    o = byte(o, 0x7d);
  }
  return <i32>(o - out);
}

/**
 * Writes the snapshots of one series, `{"date":..,"timestamp":..,"balance":..}` comma-separated,
 * at `out` and returns their length.
 */
export function writeSnapshots(events: usize, count: i32, out: usize): i32 {
  let o = out;
  for (let k = 0; k < count; k++) {
    const event = events + <usize>k * SNAPSHOT_SIZE;
    if (k != 0) o = byte(o, 0x2c);
    o = piece(o, SNAPSHOT_HEAD);
    o = date(o, load<i32>(event + SNAPSHOT_DAY));
    o = piece(o, TIMESTAMP_HEAD);
    o = writeInteger(o, <i64>load<f64>(event + SNAPSHOT_TIMESTAMP));
    o = piece(o, BALANCE_HEAD);
    o = copy(o, <usize>load<u32>(event + SNAPSHOT_TEXT), load<u32>(event + SNAPSHOT_TEXT_LENGTH));
    o = byte(o, 0x7d);
  }
  return <i32>(o - out);
}

/**
 * Writes the days of one season of a points history, `{"date":..,"points":..,"totalPoints":..,"rank":..}`
 * comma-separated, at `out` and returns their length, or -1 when a value is not finite (its day
 * is then `failedDay`). The `count` days are four columns: day numbers (i32) at `days`, points
 * and running totals (f64) at `points` and `totals`, and ranks (i32, 0 for none: null) at `ranks`.
 */
export function writeHistoryDays(days: usize, points: usize, totals: usize, ranks: usize, count: i32, out: usize): i32 {
  let o = out;
  for (let k = 0; k < count; k++) {
    const day = load<i32>(days + (<usize>k << 2));
    const dayPoints = load<f64>(points + (<usize>k << 3));
    const total = load<f64>(totals + (<usize>k << 3));
    if (!isFinite(dayPoints) || !isFinite(total)) {
      failedDay = day;
      return -1;
    }
    if (k != 0) o = byte(o, 0x2c);
    o = piece(o, SNAPSHOT_HEAD);
    o = date(o, day);
    o = piece(o, POINTS_HEAD);
    o = writeNumber(o, dayPoints);
    o = piece(o, TOTAL_POINTS_HEAD);
    o = writeNumber(o, total);
    o = piece(o, RANK_HEAD);
    const rank = load<i32>(ranks + (<usize>k << 2));
    o = rank == 0 ? piece(o, NULL) : writeInteger(o, <i64>rank);
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

/**
 * A fixed piece made by `constant`, copied eight bytes at a time: it may write up to 7 bytes past
 * its end, which the next write covers (the caller reserves 8 bytes beyond the output's bound).
 */
// @ts-ignore: decorator
@inline function piece(at: usize, from: usize): usize {
  const length = <usize>load<u8>(from);
  for (let i: usize = 0; i < length; i += 8) store<u64>(at + i, load<u64>(from + 1 + i));
  return at + length;
}

/** A number's text on its own (assembly/number-text.ts), for the tests: writes `value` at `at` and returns the length. */
export function formatNumber(at: usize, value: f64): i32 {
  return <i32>(writeNumber(at, value) - at);
}

/** `date` on its own, for the tests. */
export function formatDate(at: usize, day: i32): void {
  date(at, day);
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
