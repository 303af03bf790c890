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
const DATE_LENGTH = 10;

/** The parts of the filtered document, to be sent one after another. */
export function filterDaily(document: Buffer, from: string | null, to: string | null): Buffer[] {
  const daysStart = document.indexOf(DAYS_KEY);
  if (daysStart === -1) throw new Error('not a daily portfolio document');
  const head = document.subarray(0, daysStart + DAYS_KEY.length);
  const rowsEnd = document.lastIndexOf(CLOSING_BRACKET);
  const fromBytes = from === null ? null : Buffer.from(from);
  const toBytes = to === null ? null : Buffer.from(to);
  let first = -1;
  let last = -1;
  for (let at = document.indexOf(DAY_START, head.length); at !== -1; ) {
    const next = document.indexOf(DAY_START, at + DAY_START.length);
    const date = at + DAY_START.length;
    if (toBytes && document.compare(toBytes, 0, DATE_LENGTH, date, date + DATE_LENGTH) > 0) break;
    if (!fromBytes || document.compare(fromBytes, 0, DATE_LENGTH, date, date + DATE_LENGTH) >= 0) {
      if (first === -1) first = at;
      // A row ends at the comma before the next row, or at the closing bracket of "days".
      last = next === -1 ? rowsEnd : next - 1;
    }
    at = next;
  }
  return first === -1 ? [head, CLOSE] : [head, document.subarray(first, last), CLOSE];
}
