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
import { POW5_INV_SPLIT, POW5_SPLIT, POW5_INV_BITS, POW5_BITS } from './powers-of-five';
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
    o = number(o, total);
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
      o = number(o, value);
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
    o = integer(o, <i64>load<f64>(event + SNAPSHOT_TIMESTAMP));
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
    o = number(o, dayPoints);
    o = piece(o, TOTAL_POINTS_HEAD);
    o = number(o, total);
    o = piece(o, RANK_HEAD);
    const rank = load<i32>(ranks + (<usize>k << 2));
    o = rank == 0 ? piece(o, NULL) : integer(o, <i64>rank);
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

/** "00", "01", ... "99": digits are written two at a time. */
const DIGIT_PAIRS = memory.data(200);
for (let i: u32 = 0; i < 100; i++) {
  store<u8>(DIGIT_PAIRS + (i << 1), <u8>(0x30 + i / 10));
  store<u8>(DIGIT_PAIRS + (i << 1) + 1, <u8>(0x30 + i % 10));
}

/** `number` on its own, for the tests: writes `value` at `at` and returns the length. */
export function formatNumber(at: usize, value: f64): i32 {
  return <i32>(number(at, value) - at);
}

/** `date` on its own, for the tests. */
export function formatDate(at: usize, day: i32): void {
  date(at, day);
}

/**
 * A finite double as JavaScript's `String(value)` writes it (ECMAScript Number::toString): the
 * shortest digits that read back as the same double, the closest of them to its exact value, ties
 * to even (Ryu, below), then placed as JavaScript places them: `123.45`, `0.000012`, `1e+21`,
 * `1.5e-7`.
 */
function number(at: usize, value: f64): usize {
  if (value == 0) return byte(at, 0x30);
  const bits = reinterpret<u64>(value);
  if (bits >> 63) at = byte(at, 0x2d);
  shortest(bits & 0xFFFFFFFFFFFFF, <u32>(bits >> 52) & 0x7FF);
  // value = digits * 10^shortestExponent, with k digits; the point goes after the n-th.
  const k = decimalLength(shortestDigits);
  const n = shortestExponent + k;
  if (k <= n && n <= 21) {
    writeDigits(at, shortestDigits, k);
    at += k;
    for (let i = k; i < n; i++) at = byte(at, 0x30);
    return at;
  }
  if (0 < n && n <= 21) {
    // The digits one place to the right, then the first n moved back in front of the point.
    writeDigits(at + 1, shortestDigits, k);
    for (let i = 0; i < n; i++) store<u8>(at + i, load<u8>(at + i + 1));
    store<u8>(at + n, 0x2e);
    return at + k + 1;
  }
  if (-6 < n && n <= 0) {
    at = byte(at, 0x30);
    at = byte(at, 0x2e);
    for (let i = n; i < 0; i++) at = byte(at, 0x30);
    writeDigits(at, shortestDigits, k);
    return at + k;
  }
  writeDigits(at + 1, shortestDigits, k);
  store<u8>(at, load<u8>(at + 1));
  if (k > 1) {
    store<u8>(at + 1, 0x2e);
    at += k + 1;
  } else {
    at += 1;
  }
  at = byte(at, 0x65);
  at = byte(at, n - 1 < 0 ? 0x2d : 0x2b);
  return integer(at, <i64>abs(n - 1));
}

/** How many decimal digits `value` has (1 to 17); most doubles need 15 to 17, so those come first. */
function decimalLength(value: u64): i32 {
  if (value >= 10000000000000000) return 17;
  if (value >= 1000000000000000) return 16;
  if (value >= 100000000000000) return 15;
  let length = 1;
  for (let power: u64 = 10; value >= power; power *= 10) length++;
  return length;
}

/** The k digits of `value` at `at`, written from the last, two at a time. */
function writeDigits(at: usize, value: u64, k: i32): void {
  let end = at + k;
  if (value >= 100000000) {
    // The low 8 digits with 32-bit arithmetic (divisions by constants as multiplications), then
    // the rest (at most 9 digits) likewise.
    const high = value / 100000000;
    const low = <u32>(value - high * 100000000);
    const low4 = <u32>((<u64>low * 0xD1B71759) >> 45);
    fourDigits(end - 4, low - low4 * 10000);
    fourDigits(end - 8, low4);
    end -= 8;
    value = high;
  }
  let rest = <u32>value;
  while (rest >= 100) {
    const hundreds = <u32>((<u64>rest * 0x51EB851F) >> 37);
    end -= 2;
    store<u16>(end, load<u16>(DIGIT_PAIRS + ((rest - hundreds * 100) << 1)));
    rest = hundreds;
  }
  if (rest >= 10) store<u16>(end - 2, load<u16>(DIGIT_PAIRS + (rest << 1)));
  else store<u8>(end - 1, <u8>(0x30 + rest));
}

/** The four digits of `value` (below 10,000, leading zeros included) at `at`. */
// @ts-ignore: decorator
@inline function fourDigits(at: usize, value: u32): void {
  const high = (value * 5243) >> 19;
  store<u16>(at, load<u16>(DIGIT_PAIRS + (high << 1)));
  store<u16>(at + 2, load<u16>(DIGIT_PAIRS + ((value - high * 100) << 1)));
}

let shortestDigits: u64 = 0;
let shortestExponent: i32 = 0;

/**
 * Ryu (Ulf Adams, PLDI 2018): of the decimals that read back as the double with this mantissa and
 * exponent (IEEE fields), the one with the fewest digits, and of those the closest, ties to even;
 * the same choice as ECMAScript's Number::toString. Sets `shortestDigits` and `shortestExponent`.
 */
function shortest(ieeeMantissa: u64, ieeeExponent: u32): void {
  // value = m2 * 2^e2, with two extra bits so that the interval's bounds are integers too.
  let e2: i32;
  let m2: u64;
  if (ieeeExponent == 0) {
    e2 = 1 - 1023 - 52 - 2;
    m2 = ieeeMantissa;
  } else {
    e2 = <i32>ieeeExponent - 1023 - 52 - 2;
    m2 = (<u64>1 << 52) | ieeeMantissa;
  }
  // Round-to-even reading includes the bounds of the interval when the mantissa is even.
  const acceptBounds = (m2 & 1) == 0;
  const mv = 4 * m2;
  // The lower bound is closer when the mantissa is a power of two (and not the smallest exponent).
  const mmShift: u64 = ieeeMantissa != 0 || ieeeExponent <= 1 ? 1 : 0;
  let vr: u64, vp: u64, vm: u64;
  let e10: i32;
  let vmIsTrailingZeros = false;
  let vrIsTrailingZeros = false;
  if (e2 >= 0) {
    const q = log10Pow2(e2) - (e2 > 3 ? 1 : 0);
    e10 = q;
    const k = POW5_INV_BITS + pow5Bits(q) - 1;
    const j = -e2 + q + k;
    vr = mulShiftAll(m2, POW5_INV_SPLIT + (<usize>q << 4), j, mmShift);
    vp = shiftedUp;
    vm = shiftedDown;
    if (q <= 21) {
      // At most one of mv, mp and mm is a multiple of 5.
      if (mv % 5 == 0) vrIsTrailingZeros = multipleOfPowerOf5(mv, q);
      else if (acceptBounds) vmIsTrailingZeros = multipleOfPowerOf5(mv - 1 - mmShift, q);
      else vp -= multipleOfPowerOf5(mv + 2, q) ? 1 : 0;
    }
  } else {
    const q = log10Pow5(-e2) - (-e2 > 1 ? 1 : 0);
    e10 = q + e2;
    const i = -e2 - q;
    const k = pow5Bits(i) - POW5_BITS;
    const j = q - k;
    vr = mulShiftAll(m2, POW5_SPLIT + (<usize>i << 4), j, mmShift);
    vp = shiftedUp;
    vm = shiftedDown;
    if (q <= 1) {
      // mv has at least two trailing zero bits; mm has one exactly when mmShift is 1.
      vrIsTrailingZeros = true;
      if (acceptBounds) vmIsTrailingZeros = mmShift == 1;
      else vp--;
    } else if (q < 63) {
      vrIsTrailingZeros = (mv & ((<u64>1 << q) - 1)) == 0;
    }
  }
  // Drop digits while the interval still holds a shorter decimal.
  let removed: i32 = 0;
  let lastRemovedDigit: u64 = 0;
  let output: u64;
  if (vmIsTrailingZeros || vrIsTrailingZeros) {
    // The rare case where the exact value or the lower bound ends in zeros: once the interval
    // holds no shorter decimal, a lower bound that is itself one (and included) still drops its
    // zeros.
    while (vp / 10 > vm / 10 || (vmIsTrailingZeros && vm % 10 == 0)) {
      vmIsTrailingZeros &= vm % 10 == 0;
      vrIsTrailingZeros &= lastRemovedDigit == 0;
      lastRemovedDigit = vr % 10;
      vr /= 10;
      vp /= 10;
      vm /= 10;
      removed++;
    }
    // Exactly halfway: to even.
    if (vrIsTrailingZeros && lastRemovedDigit == 5 && vr % 2 == 0) lastRemovedDigit = 4;
    output = vr + ((vr == vm && (!acceptBounds || !vmIsTrailingZeros)) || lastRemovedDigit >= 5 ? 1 : 0);
  } else {
    let roundUp = false;
    // Two digits at once first: most doubles lose two or three.
    if (vp / 100 > vm / 100) {
      roundUp = vr % 100 >= 50;
      vr /= 100;
      vp /= 100;
      vm /= 100;
      removed += 2;
    }
    while (vp / 10 > vm / 10) {
      roundUp = vr % 10 >= 5;
      vr /= 10;
      vp /= 10;
      vm /= 10;
      removed++;
    }
    output = vr + (vr == vm || roundUp ? 1 : 0);
  }
  shortestDigits = output;
  shortestExponent = e10 + removed;
}

/** ceil(log2(5^e)) for e >= 1, and 1 for e = 0 (0 <= e <= 3528). */
// @ts-ignore: decorator
@inline function pow5Bits(e: i32): i32 {
  return <i32>((<u32>e * 1217359) >> 19) + 1;
}

/** floor(log10(2^e)) for 0 <= e <= 1650. */
// @ts-ignore: decorator
@inline function log10Pow2(e: i32): i32 {
  return <i32>((<u32>e * 78913) >> 18);
}

/** floor(log10(5^e)) for 0 <= e <= 2620. */
// @ts-ignore: decorator
@inline function log10Pow5(e: i32): i32 {
  return <i32>((<u32>e * 732923) >> 20);
}

function multipleOfPowerOf5(value: u64, p: i32): bool {
  let count = 0;
  while (value % 5 == 0) {
    value /= 5;
    count++;
  }
  return count >= p;
}

/** The high 64 bits of the last `multiply`. */
let productHigh: u64 = 0;

/** a * b as 128 bits: returns the low 64, leaves the high 64 in `productHigh`. */
// @ts-ignore: decorator
@inline function multiply(a: u64, b: u64): u64 {
  const aLow = a & 0xFFFFFFFF;
  const aHigh = a >> 32;
  const bLow = b & 0xFFFFFFFF;
  const bHigh = b >> 32;
  const lowLow = aLow * bLow;
  const middle = aHigh * bLow + (lowLow >> 32);
  const middle2 = aLow * bHigh + (middle & 0xFFFFFFFF);
  productHigh = aHigh * bHigh + (middle >> 32) + (middle2 >> 32);
  return (middle2 << 32) | (lowLow & 0xFFFFFFFF);
}

/** The 128 bits (high, low) shifted right by 0 < shift < 64, low 64 bits. */
// @ts-ignore: decorator
@inline function shiftRight128(low: u64, high: u64, shift: i32): u64 {
  return (high << (64 - <u64>shift)) | (low >> <u64>shift);
}

/** Set by `mulShiftAll`: the upper and lower bounds of the interval, in the same scale. */
let shiftedUp: u64 = 0;
let shiftedDown: u64 = 0;

/**
 * (4 * m2 + d) * table entry >> j for d = 0 (returned), d = 2 (`shiftedUp`) and d = -1 - mmShift
 * (`shiftedDown`), from one 64 x 128-bit product of 2 * m2 (the entry is below 2^125, m2 below 2^54).
 */
function mulShiftAll(m2: u64, table: usize, j: i32, mmShift: u64): u64 {
  const low = load<u64>(table);
  const high = load<u64>(table, 8);
  const m = m2 << 1;
  const productLow = multiply(m, low);
  const carryOut = productHigh;
  const middleLow = multiply(m, high);
  let top = productHigh;
  const middle = carryOut + middleLow;
  if (middle < carryOut) top++;

  // + 2: one more table entry at the scale of 2 * m2.
  const low2 = productLow + low;
  const middle2 = middle + high + (low2 < productLow ? 1 : 0);
  const top2 = top + (middle2 < middle ? 1 : 0);
  shiftedUp = shiftRight128(middle2, top2, j - 65);
  if (mmShift == 1) {
    // - 1 - 1: one table entry less at the scale of 2 * m2.
    const low3 = productLow - low;
    const middle3 = middle - high - (low3 > productLow ? 1 : 0);
    const top3 = top - (middle3 > middle ? 1 : 0);
    shiftedDown = shiftRight128(middle3, top3, j - 65);
  } else {
    // - 1 - 0: at the scale of 4 * m2, one table entry less.
    const low3 = productLow + productLow;
    const middle3 = middle + middle + (low3 < productLow ? 1 : 0);
    const top3 = top + top + (middle3 < middle ? 1 : 0);
    const low4 = low3 - low;
    const middle4 = middle3 - high - (low4 > low3 ? 1 : 0);
    const top4 = top3 - (middle4 > middle3 ? 1 : 0);
    shiftedDown = shiftRight128(middle4, top4, j - 64);
  }
  return shiftRight128(middle, top, j - 65);
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
