/**
 * In the bucket, a daily document is stored as two parts when it reaches back before the month
 * of the tree's last closed day: the rows of the closed months, stored once as a blob shared by
 * every version that holds the same bytes, and the rest (the head, the current month's rows and
 * the closing brackets) under the version. A night adds a row to every daily document; with this
 * split it re-sends only the current month's rows, and the closed months' bytes again only when
 * a month closes (docs/publishing.md, "Daily documents in two parts").
 */
import { indexDailyRows } from '../server/daily-range.ts';

/** The tree path of a wallet's daily document. */
const DAILY_PATH = /^v1\/address\/0x[0-9a-f]{40}\/portfolio\/daily\.json$/;

/** The bytes of a document that go to a blob: `length` bytes from offset `at`. */
export interface ClosedMonthsSpan {
  at: number;
  length: number;
}

/**
 * The span of the closed months' rows (from the first row up to and including the comma after
 * the last row dated before the month of `lastClosedDay`), or null when the document is stored
 * whole: it is not a wallet's daily document, or it has no row before that month (nothing would
 * be shared), or no row in it (the span would change as soon as the month gets its first row).
 */
export function closedMonthsSpan(treePath: string, bytes: Uint8Array, lastClosedDay: string): ClosedMonthsSpan | null {
  if (!DAILY_PATH.test(treePath)) return null;
  const { starts, dates } = indexDailyRows(bytes);
  const monthStart = Number(`${lastClosedDay.slice(0, 4)}${lastClosedDay.slice(5, 7)}01`);
  const firstOfMonth = dates.findIndex((date) => date >= monthStart);
  if (firstOfMonth <= 0) return null;
  const at = starts[0]!;
  return { at, length: starts[firstOfMonth]! - at };
}

/** The document without the span: what is stored under the version. */
export function restOf(bytes: Uint8Array, span: ClosedMonthsSpan): Buffer {
  return Buffer.concat([bytes.subarray(0, span.at), bytes.subarray(span.at + span.length)]);
}
