/**
 * The day rows of a daily document, as bytes: the build writes each row as
 * `{"date":"YYYY-MM-DD",...}`, oldest first, and no other object of the document has a "date"
 * key; documents are ASCII. The handler cuts a document to the days from `from` to `to` with
 * this index (taken out of the bytes rather than parsed and serialised again: JSON.parse would
 * round balances that carry more digits than a double).
 */
const DAY_START = ascii('{"date":"');
const DAYS_KEY = ascii('"days":[');
const CLOSE = ascii(']}');
const CLOSING_BRACKET = 0x5d;

/** Where a document's day rows are: found once per file version and kept with its bytes. */
export interface DailyRows {
  /** End of `{"asOf":...,"days":[`. */
  headEnd: number;
  /** Where each row starts. */
  starts: Int32Array;
  /** Each row's date as the number YYYYMMDD (ordered as the dates are). */
  dates: Int32Array;
  /** The closing bracket of "days", where the last row ends. */
  rowsEnd: number;
}

const indexes = new WeakMap<Uint8Array, DailyRows>();

function dailyRowsOf(document: Uint8Array): DailyRows {
  let rows = indexes.get(document);
  if (!rows) {
    rows = indexDailyRows(document);
    indexes.set(document, rows);
  }
  return rows;
}

export function indexDailyRows(document: Uint8Array): DailyRows {
  const daysStart = indexOf(document, DAYS_KEY, 0);
  if (daysStart === -1) throw new Error('not a daily portfolio document');
  const headEnd = daysStart + DAYS_KEY.length;
  const starts: number[] = [];
  const dates: number[] = [];
  for (let at = indexOf(document, DAY_START, headEnd); at !== -1; at = indexOf(document, DAY_START, at + DAY_START.length)) {
    starts.push(at);
    dates.push(dateNumber(document, at + DAY_START.length));
  }
  return { headEnd, starts: Int32Array.from(starts), dates: Int32Array.from(dates), rowsEnd: document.lastIndexOf(CLOSING_BRACKET) };
}

/** The filtered document, as one byte array. */
export function filterDaily(
  document: Uint8Array,
  from: string | null,
  to: string | null,
  rows = dailyRowsOf(document),
): Uint8Array<ArrayBuffer> {
  const head = document.subarray(0, rows.headEnd);
  const { starts, dates } = rows;
  const first = from === null ? 0 : firstAtLeast(dates, Number(from.replaceAll('-', '')));
  // The row after the last one to send: the first dated after `to`.
  const end = to === null ? dates.length : firstAtLeast(dates, Number(to.replaceAll('-', '')) + 1);
  if (first >= end) return concat([head, CLOSE]);
  // A row ends at the comma before the next row, or at the closing bracket of "days".
  const last = end < starts.length ? starts[end]! - 1 : rows.rowsEnd;
  return concat([head, document.subarray(starts[first]!, last), CLOSE]);
}

/** The index of the first date >= `date` (the length when there is none); dates ascend. */
function firstAtLeast(dates: Int32Array, date: number): number {
  let low = 0;
  let high = dates.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (dates[middle]! < date) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** `YYYY-MM-DD` at `at` as YYYYMMDD. */
function dateNumber(document: Uint8Array, at: number): number {
  const digit = (offset: number) => document[at + offset]! - 0x30;
  return (
    digit(0) * 10_000_000 +
    digit(1) * 1_000_000 +
    digit(2) * 100_000 +
    digit(3) * 10_000 +
    digit(5) * 1_000 +
    digit(6) * 100 +
    digit(8) * 10 +
    digit(9)
  );
}

/** The first position of `needle` in `haystack` at or after `from`, or -1. */
function indexOf(haystack: Uint8Array, needle: Uint8Array, from: number): number {
  const first = needle[0]!;
  const last = haystack.length - needle.length;
  for (let at = haystack.indexOf(first, from); at !== -1 && at <= last; at = haystack.indexOf(first, at + 1)) {
    let k = 1;
    while (k < needle.length && haystack[at + k] === needle[k]) k++;
    if (k === needle.length) return at;
  }
  return -1;
}

function concat(parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const result = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
  let at = 0;
  for (const part of parts) {
    result.set(part, at);
    at += part.length;
  }
  return result;
}

function ascii(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}
