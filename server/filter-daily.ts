/**
 * The daily document filtered by from/to, cut out of the file's bytes rather than parsed and
 * re-serialised: JSON.parse would round balances that carry more digits than a double (the build
 * writes them exactly), and cutting allocates nothing per request but three views of the file.
 * The build writes day rows as `{"date":"YYYY-MM-DD",...}`, oldest first, and no other object
 * has a "date" key; documents are ASCII.
 */
const DAY_START = Buffer.from('{"date":"');
const DAYS_KEY = Buffer.from('"days":[');
const CLOSE = Buffer.from(']}');
const CLOSING_BRACKET = 0x5d;

/**
 * Where a document's day rows are. Found once per file version and kept with its bytes: scanning
 * every row on every request was half of the server's CPU under load.
 */
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

export function indexDailyRows(document: Buffer): DailyRows {
  const daysStart = document.indexOf(DAYS_KEY);
  if (daysStart === -1) throw new Error('not a daily portfolio document');
  const headEnd = daysStart + DAYS_KEY.length;
  const starts: number[] = [];
  const dates: number[] = [];
  for (let at = document.indexOf(DAY_START, headEnd); at !== -1; at = document.indexOf(DAY_START, at + DAY_START.length)) {
    starts.push(at);
    dates.push(dateNumber(document, at + DAY_START.length));
  }
  return { headEnd, starts: Int32Array.from(starts), dates: Int32Array.from(dates), rowsEnd: document.lastIndexOf(CLOSING_BRACKET) };
}

/** The parts of the filtered document, to be sent one after another. */
export function filterDaily(document: Buffer, from: string | null, to: string | null, rows = indexDailyRows(document)): Buffer[] {
  const head = document.subarray(0, rows.headEnd);
  const { starts, dates } = rows;
  const first = from === null ? 0 : firstAtLeast(dates, Number(from.replaceAll('-', '')));
  // The row after the last one to send: the first dated after `to`.
  const end = to === null ? dates.length : firstAtLeast(dates, Number(to.replaceAll('-', '')) + 1);
  if (first >= end) return [head, CLOSE];
  // A row ends at the comma before the next row, or at the closing bracket of "days".
  const last = end < starts.length ? starts[end]! - 1 : rows.rowsEnd;
  return [head, document.subarray(starts[first]!, last), CLOSE];
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
function dateNumber(document: Buffer, at: number): number {
  const digit = (offset: number) => document[at + offset]! - 0x30;
  return (
    digit(0) * 10_000_000 + digit(1) * 1_000_000 + digit(2) * 100_000 + digit(3) * 10_000 +
    digit(5) * 1_000 + digit(6) * 100 + digit(8) * 10 + digit(9)
  );
}
