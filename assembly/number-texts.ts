/**
 * verify's pass over a document's bytes that finds the text of every number (tree/verify-exact.ts
 * states the rule and reads what this pass records). JSON.parse has accepted the bytes, so their
 * grammar is not checked again. Each number is decided here when it can be without converting it:
 * a balance that is not an exact decimal is the problem; any other number written as JavaScript
 * writes a double of at most 15 significant digits is right; a longer one is right when the
 * build's own writer of doubles (assembly/number-text.ts) writes it for the double nearest its
 * value or one of that double's neighbours. What is left is recorded for the caller, in document
 * order: each balance's text, and each other number whose text must be converted and written
 * back to be judged (JavaScript decides every text this pass does not accept). Compiled by
 * `npm run wasm` into tree/number-texts.wasm (committed).
 */
import { writeNumber } from './number-text';

const QUOTE: u32 = 34;
const BACKSLASH: u32 = 92;
const COLON: u32 = 58;
const OPEN_OBJECT: u32 = 123;
const CLOSE_OBJECT: u32 = 125;
const OPEN_ARRAY: u32 = 91;
const CLOSE_ARRAY: u32 = 93;
const MINUS: u32 = 45;
const PLUS: u32 = 43;
const DOT: u32 = 46;
const ZERO: u32 = 48;
const SPACE: u32 = 32;
const LOWER_E: u32 = 101;
const UPPER_E: u32 = 69;

/** What `scan` returns. */
export const PAIRED: i32 = 0;
/** The texts cannot be paired with the parsed numbers in document order: the caller pairs them the slow way. */
export const UNPAIRED: i32 = 1;
/** More records than the caller made room for: it makes more and scans again. */
export const FULL: i32 = 2;

/** Each record: the number's start and end, then its key's start and end (NO_KEY for a balance). */
export const RECORD_WORDS: i32 = 4;
export const NO_KEY: i32 = -1;

/** Nesting beyond this goes the slow way (a tampered document only). */
const MAX_DEPTH: i32 = 512;
/** Keys an object may have before the duplicate check (quadratic) gives way to the slow pairing. */
const MAX_KEYS_CHECKED: i32 = 32;
/** Digits one double tells apart: any shorter decimal is the text JavaScript writes for its double. */
const SAFE_DIGITS: i32 = 15;
/** The powers of ten a double holds exactly, 10^0 to 10^22. */
const EXACT_POWERS_OF_TEN = memory.data<f64>([
  1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
]);
/** Where a candidate's text is written to be compared (a double's text is at most 25 bytes). */
const WRITTEN = memory.data(32);

// Per depth: is an array; the first key of the object in the key lists; the key of an array's
// items; the last array-index key of an object (-1 none, -2 once another key came).
const IS_ARRAY = memory.data(MAX_DEPTH);
const FIRST_KEY = memory.data(MAX_DEPTH * 4);
const ITEM_KEY_START = memory.data(MAX_DEPTH * 4);
const ITEM_KEY_END = memory.data(MAX_DEPTH * 4);
const ITEM_IS_BALANCE = memory.data(MAX_DEPTH);
const LAST_INDEX_KEY = memory.data(MAX_DEPTH * 4);
// The keys of the open objects, innermost last.
const KEY_START = memory.data(MAX_DEPTH * MAX_KEYS_CHECKED * 4);
const KEY_END = memory.data(MAX_DEPTH * MAX_KEYS_CHECKED * 4);
const KEY_IS_BALANCE = memory.data(MAX_DEPTH * MAX_KEYS_CHECKED);

/** Records written by the last scan. */
export let records: i32 = 0;
/** The first balance that is not an exact decimal (-1: none); nothing after it is recorded. */
export let badBalanceStart: i32 = -1;
export let badBalanceEnd: i32 = 0;

let text: usize = 0;
let depth: i32 = -1;
let keyCount: i32 = 0;
let out: usize = 0;
let capacity: i32 = 0;
let lastCheckStart: i32 = -1;
let lastCheckEnd: i32 = -1;

/** Where the caller may lay out its document: above this module's tables. */
export function dataStart(): usize {
  return __heap_base;
}

/**
 * Scans the `length` bytes at `at` (followed by a zero byte), recording into `records` at `into`
 * (room for `room` records). Returns PAIRED, UNPAIRED or FULL.
 */
export function scan(at: usize, length: i32, into: usize, room: i32): i32 {
  text = at;
  out = into;
  capacity = room;
  depth = -1;
  keyCount = 0;
  records = 0;
  badBalanceStart = -1;
  badBalanceEnd = 0;
  lastCheckStart = -1;
  lastCheckEnd = -1;
  let i: i32 = 0;
  while (i < length) {
    const code = <u32>load<u8>(text + <usize>i);
    if (code == QUOTE) {
      const start = i + 1;
      let escaped = false;
      i = start;
      while (i < length) {
        const c = <u32>load<u8>(text + <usize>i);
        if (c == QUOTE) break;
        if (c == BACKSLASH) {
          escaped = true;
          i += 2;
        } else {
          i++;
        }
      }
      const end = i;
      i++;
      while (i < length && <u32>load<u8>(text + <usize>i) <= SPACE) i++;
      if (i < length && <u32>load<u8>(text + <usize>i) == COLON) {
        // A key. Escapes could spell one key two ways: such a text goes the slow way.
        if (escaped || !addKey(start, end)) return UNPAIRED;
        i++;
      }
    } else if (code == MINUS || code - ZERO <= 9) {
      i = number(i);
      if (i < 0) return FULL;
    } else if (code == OPEN_OBJECT || code == OPEN_ARRAY) {
      if (!open(code == OPEN_ARRAY)) return UNPAIRED;
      i++;
    } else if (code == CLOSE_OBJECT || code == CLOSE_ARRAY) {
      if (code == CLOSE_OBJECT) keyCount = load<i32>(FIRST_KEY + (<usize>depth << 2));
      depth--;
      i++;
    } else {
      i++;
    }
  }
  return PAIRED;
}

function open(array: bool): bool {
  const parent = depth;
  if (parent + 1 >= MAX_DEPTH) return false;
  depth++;
  const d = <usize>depth;
  store<u8>(IS_ARRAY + d, array ? 1 : 0);
  store<i32>(FIRST_KEY + (d << 2), keyCount);
  store<i32>(LAST_INDEX_KEY + (d << 2), -1);
  if (!array) return true;
  // An array's items take the key of the array, as when the parsed value is walked.
  let start: i32 = 0;
  let end: i32 = 0;
  let balance: u8 = 0;
  if (parent >= 0) {
    const p = <usize>parent;
    if (load<u8>(IS_ARRAY + p) != 0) {
      start = load<i32>(ITEM_KEY_START + (p << 2));
      end = load<i32>(ITEM_KEY_END + (p << 2));
      balance = load<u8>(ITEM_IS_BALANCE + p);
    } else if (keyCount > 0) {
      const k = <usize>(keyCount - 1);
      start = load<i32>(KEY_START + (k << 2));
      end = load<i32>(KEY_END + (k << 2));
      balance = load<u8>(KEY_IS_BALANCE + k);
    }
  }
  store<i32>(ITEM_KEY_START + (d << 2), start);
  store<i32>(ITEM_KEY_END + (d << 2), end);
  store<u8>(ITEM_IS_BALANCE + d, balance);
  return true;
}

/** Records a key of the open object; false when the parsed object would not enumerate in text order. */
function addKey(start: i32, end: i32): bool {
  if (depth < 0) return false;
  const d = <usize>depth;
  const first = load<i32>(FIRST_KEY + (d << 2));
  if (keyCount - first >= MAX_KEYS_CHECKED) return false;
  const length = end - start;
  for (let k = first; k < keyCount; k++) {
    const otherStart = load<i32>(KEY_START + (<usize>k << 2));
    if (load<i32>(KEY_END + (<usize>k << 2)) - otherStart != length) continue;
    if (memory.compare(text + <usize>start, text + <usize>otherStart, <usize>length) == 0) return false;
  }
  // Array-index keys ("0" to "4294967294") enumerate first, ascending: they must come so in the text.
  const index = indexKey(start, end);
  const last = load<i32>(LAST_INDEX_KEY + (d << 2));
  if (index == -2) return false;
  if (index >= 0) {
    if (last == -2 || index <= last) return false;
    store<i32>(LAST_INDEX_KEY + (d << 2), index);
  } else {
    store<i32>(LAST_INDEX_KEY + (d << 2), -2);
  }
  const k = <usize>keyCount;
  store<i32>(KEY_START + (k << 2), start);
  store<i32>(KEY_END + (k << 2), end);
  store<u8>(KEY_IS_BALANCE + k, isBalanceKey(start, end) ? 1 : 0);
  keyCount++;
  return true;
}

/** Checks the number starting at `start`; returns the offset after it, or -1 when the records are full. */
function number(start: i32): i32 {
  let i = start;
  const negative = <u32>load<u8>(text + <usize>i) == MINUS;
  if (negative) i++;
  const integerStart = i;
  while (isDigit(i)) i++;
  const integerEnd = i;
  let fractionStart: i32 = -1;
  let fractionEnd: i32 = -1;
  if (<u32>load<u8>(text + <usize>i) == DOT) {
    fractionStart = ++i;
    while (isDigit(i)) i++;
    fractionEnd = i;
  }
  let exponent = false;
  const afterMantissa = <u32>load<u8>(text + <usize>i);
  if (afterMantissa == LOWER_E || afterMantissa == UPPER_E) {
    exponent = true;
    i++;
    const sign = <u32>load<u8>(text + <usize>i);
    if (sign == PLUS || sign == MINUS) i++;
    while (isDigit(i)) i++;
  }
  const end = i;
  if (badBalanceStart >= 0) return end;
  let keyStart: i32 = 0;
  let keyEnd: i32 = 0;
  let balance = false;
  if (depth >= 0) {
    const d = <usize>depth;
    if (load<u8>(IS_ARRAY + d) != 0) {
      keyStart = load<i32>(ITEM_KEY_START + (d << 2));
      keyEnd = load<i32>(ITEM_KEY_END + (d << 2));
      balance = load<u8>(ITEM_IS_BALANCE + d) != 0;
    } else if (keyCount > load<i32>(FIRST_KEY + (d << 2))) {
      const k = <usize>(keyCount - 1);
      keyStart = load<i32>(KEY_START + (k << 2));
      keyEnd = load<i32>(KEY_END + (k << 2));
      balance = load<u8>(KEY_IS_BALANCE + k) != 0;
    }
  }
  const trailingZero = fractionStart >= 0 && <u32>load<u8>(text + <usize>(fractionEnd - 1)) == ZERO;
  if (balance) {
    if (negative || exponent || trailingZero) {
      badBalanceStart = start;
      badBalanceEnd = end;
      return end;
    }
    return record(start, end, NO_KEY, NO_KEY) ? end : -1;
  }
  if (!exponent && !trailingZero && isShortestText(negative, integerStart, integerEnd, fractionStart, fractionEnd)) return end;
  // A day of one position repeats its value as the day's total: a text just judged is not judged again.
  if (end - start == lastCheckEnd - lastCheckStart && memory.compare(text + <usize>start, text + <usize>lastCheckStart, <usize>(end - start)) == 0)
    return end;
  lastCheckStart = start;
  lastCheckEnd = end;
  if (!exponent && !trailingZero && isWrittenText(start, end, negative, integerStart, integerEnd, fractionStart, fractionEnd)) return end;
  return record(start, end, keyStart, keyEnd) ? end : -1;
}

/**
 * Whether a decimal without exponent is the text JavaScript writes for a double, shown by writing
 * it. The double computed from its digits (at most 19 significant ones) and a power of ten a
 * double holds exactly is rounded twice, so it is the double the text stands for or close to it:
 * it and its two neighbours are written, and the text is accepted when one of them writes it. A
 * text the writer writes for a double reads back as that double, so no text is accepted that
 * JavaScript would not write; any other (more digits, a power beyond 10^22, a text none of the
 * three writes) is left to the caller, which converts it.
 */
function isWrittenText(start: i32, end: i32, negative: bool, integerStart: i32, integerEnd: i32, fractionStart: i32, fractionEnd: i32): bool {
  let digits: u64 = 0;
  let significant: i32 = 0;
  for (let c = integerStart; c < end; c++) {
    if (c == integerEnd) continue;
    const digit = <u64>(<u32>load<u8>(text + <usize>c) - ZERO);
    if (significant == 0 && digit == 0) continue;
    if (++significant > 19) return false;
    digits = digits * 10 + digit;
  }
  const scale = fractionStart < 0 ? 0 : fractionEnd - fractionStart;
  if (digits == 0 || scale > 22) return false;
  // Two roundings (the digits to a double, then the quotient): a step or two from the text's double.
  let value = <f64>digits / load<f64>(EXACT_POWERS_OF_TEN + (<usize>scale << 3));
  if (negative) value = -value;
  const bits = reinterpret<u64>(value);
  return writes(value, start, end) || writes(reinterpret<f64>(bits + 1), start, end) || writes(reinterpret<f64>(bits - 1), start, end);
}

function writes(value: f64, start: i32, end: i32): bool {
  const length = <i32>(writeNumber(WRITTEN, value) - WRITTEN);
  return length == end - start && memory.compare(WRITTEN, text + <usize>start, <usize>length) == 0;
}

function record(start: i32, end: i32, keyStart: i32, keyEnd: i32): bool {
  if (records >= capacity) return false;
  const at = out + (<usize>records << 4);
  store<i32>(at, start);
  store<i32>(at, end, 4);
  store<i32>(at, keyStart, 8);
  store<i32>(at, keyEnd, 12);
  records++;
  return true;
}

/**
 * Whether a decimal without exponent or trailing fraction zero is the text JavaScript writes for
 * its double (Number::toString), decided without converting: at most 15 significant digits (one
 * double never holds two such decimals, so the shortest text of the double is this one), a value
 * JavaScript writes without exponent (below 1e21, at least 1e-6), and not "-0".
 */
function isShortestText(negative: bool, integerStart: i32, integerEnd: i32, fractionStart: i32, fractionEnd: i32): bool {
  const integerDigits = integerEnd - integerStart;
  if (integerDigits == 1 && <u32>load<u8>(text + <usize>integerStart) == ZERO) {
    if (fractionStart < 0) return !negative;
    let zeros: i32 = 0;
    while (<u32>load<u8>(text + <usize>(fractionStart + zeros)) == ZERO) zeros++;
    return zeros <= 5 && fractionEnd - fractionStart - zeros <= SAFE_DIGITS;
  }
  if (integerDigits > 21) return false;
  if (fractionStart >= 0) return integerDigits + fractionEnd - fractionStart <= SAFE_DIGITS;
  let significant = integerDigits;
  while (significant > 1 && <u32>load<u8>(text + <usize>(integerStart + significant - 1)) == ZERO) significant--;
  return significant <= SAFE_DIGITS;
}

// @ts-ignore: decorator
@inline
function isDigit(i: i32): bool {
  return <u32>load<u8>(text + <usize>i) - ZERO <= 9;
}

function isBalanceKey(start: i32, end: i32): bool {
  // "balance", as bytes.
  if (end - start != 7) return false;
  const at = text + <usize>start;
  return load<u32>(at) == 0x616c6162 && load<u16>(at, 4) == 0x636e && load<u8>(at, 6) == 0x65;
}

/** The array index a key names, -1 for a key that is not one, -2 for an all-digit key V8 may treat either way. */
function indexKey(start: i32, end: i32): i32 {
  const length = end - start;
  if (length == 0) return -1;
  for (let c = start; c < end; c++) if (!isDigit(c)) return -1;
  if (length > 1 && <u32>load<u8>(text + <usize>start) == ZERO) return -1;
  if (length > 9) return -2;
  let value: i32 = 0;
  for (let c = start; c < end; c++) value = value * 10 + <i32>(<u32>load<u8>(text + <usize>c) - ZERO);
  return value;
}
