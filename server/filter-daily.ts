/**
 * The daily document filtered by from/to, cut out of the file's text rather than parsed and
 * re-serialised: JSON.parse would round balances that carry more digits than a double (the build
 * writes them exactly), and slicing is also far cheaper. The build writes day rows as
 * `{"date":"YYYY-MM-DD",...}`, oldest first, and no other object has a "date" key.
 */
const DAY_START = '{"date":"';
const DAYS_KEY = '"days":[';

export function filterDaily(text: string, from: string | null, to: string | null): string {
  const daysStart = text.indexOf(DAYS_KEY);
  if (daysStart === -1) throw new Error('not a daily portfolio document');
  const head = text.slice(0, daysStart + DAYS_KEY.length);
  const rowsEnd = text.lastIndexOf(']');
  let first = -1;
  let last = -1;
  for (let at = text.indexOf(DAY_START, daysStart); at !== -1; ) {
    const next = text.indexOf(DAY_START, at + DAY_START.length);
    const date = text.slice(at + DAY_START.length, at + DAY_START.length + 10);
    if (to !== null && date > to) break;
    if (from === null || date >= from) {
      if (first === -1) first = at;
      // A row ends at the comma before the next row, or at the closing bracket of "days".
      last = next === -1 ? rowsEnd : next - 1;
    }
    at = next;
  }
  return first === -1 ? `${head}]}` : `${head}${text.slice(first, last)}]}`;
}
