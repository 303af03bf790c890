/**
 * The New York day (docs/semantics.md): every day of the product is a calendar day in New York,
 * daylight saving included, written as an integer (days since 1970-01-01) between SQL and
 * TypeScript. The rule lives here only, in the forms its users need side by side: TypeScript for
 * the build's last closed day (build/config.ts) and the inputs' extent (build/input/check.ts), SQL
 * for the snapshots' days (build/compute/history.ts) and the inputs' days (build/compute/input-days.ts),
 * and the zone's name for the explorer's times of day. test/rules.test.ts holds the forms to the
 * same days on instants around daylight-saving changes and before 1970, and fails on a second
 * spelling of the zone or of its arithmetic elsewhere.
 *
 * Days are found by floor division, never truncation: an instant before 1970 has negative
 * seconds, and truncating toward zero would put it in the day after its own. This module imports
 * nothing, so that the explorer and the Worker can import it; its TypeScript uses `Intl`, which
 * knows the zone's whole history (local mean time, UTC-4:56:02, until 1883-11-18) as DuckDB's ICU does.
 */

/** The zone every day of the inputs and of the tree is in (its IANA name). */
export const NEW_YORK_ZONE = 'America/New_York';

const SECONDS_PER_DAY = 86_400;
/**
 * New York's offset from UTC has always been between these (-5 h standard time, -4 h daylight
 * time, -4:56:02 local mean time): an instant's day is then one of two, which lets SQL find the
 * days of many rows from a small table of the days' first instants (`newYorkDayFromTableSql`).
 */
const LATEST_OFFSET_SECONDS = -4 * 3600;
const EARLIEST_OFFSET_SECONDS = -5 * 3600;

/** Made at the first use, not when the module loads: the explorer imports the zone's name alone. */
let offsetFormat: Intl.DateTimeFormat | undefined;

/** New York's offset from UTC at the instant `seconds`, in seconds (`GMT-04:56:02` is -17,762). */
function offsetAt(seconds: number): number {
  offsetFormat ??= new Intl.DateTimeFormat('en-US', { timeZone: NEW_YORK_ZONE, timeZoneName: 'longOffset' });
  const name = offsetFormat.formatToParts(new Date(seconds * 1000)).find((part) => part.type === 'timeZoneName')!.value;
  const match = /^GMT(?:([+-])(\d\d):(\d\d)(?::(\d\d))?)?$/.exec(name);
  if (!match) throw new Error(`unexpected offset name ${name} for ${NEW_YORK_ZONE}`);
  if (match[1] === undefined) return 0;
  const size = Number(match[2]) * 3600 + Number(match[3]) * 60 + Number(match[4] ?? 0);
  return match[1] === '-' ? -size : size;
}

/** The New York day (days since 1970-01-01) of the instant `seconds` (Unix time, any sign, fractions allowed). */
export function newYorkDayOf(seconds: number): number {
  return Math.floor((seconds + offsetAt(seconds)) / SECONDS_PER_DAY);
}

/** The first instant (Unix seconds) of New York day `day`: the least whole second whose day it is. */
export function newYorkDayStart(day: number): number {
  // The day starts between its UTC midnight plus 4 and plus 5 hours; a search over that window
  // finds the first second of it whatever the offset that night.
  let before = day * SECONDS_PER_DAY - LATEST_OFFSET_SECONDS - 1;
  let at = day * SECONDS_PER_DAY - EARLIEST_OFFSET_SECONDS;
  while (at - before > 1) {
    const middle = Math.floor((before + at) / 2);
    if (newYorkDayOf(middle) >= day) at = middle;
    else before = middle;
  }
  return at;
}

/** `newYorkDayOf` in SQL: the day (INTEGER) of `seconds`, an expression of Unix seconds. */
export function newYorkDayOfSql(seconds: string): string {
  return `(timezone('${NEW_YORK_ZONE}', to_timestamp(${seconds}))::DATE - DATE '1970-01-01')::INTEGER`;
}

/** `newYorkDayStart` in SQL: the first instant (BIGINT Unix seconds) of `day`, an expression of a day number. */
export function newYorkDayStartSql(day: string): string {
  return `epoch(timezone('${NEW_YORK_ZONE}', (DATE '1970-01-01' + (${day})::INTEGER)::TIMESTAMP))::BIGINT`;
}

/**
 * The New York days that the instants `seconds` of the rows of `rows` can fall in, each with its
 * first instant: `day`, `starts_at`. For `newYorkDayFromTableSql`, which finds the days of many rows
 * without converting each row's instant (ICU per row is costly at 10 million rows).
 */
export function newYorkDaysTableSql(rows: string, seconds: string): string {
  return `
    WITH span AS (SELECT floor(min(${seconds}) / ${SECONDS_PER_DAY})::BIGINT - 2 AS first_day,
                         floor(max(${seconds}) / ${SECONDS_PER_DAY})::BIGINT + 2 AS last_day FROM ${rows})
    SELECT day::INTEGER AS day, ${newYorkDayStartSql('day')} AS starts_at
    FROM span, range(first_day, last_day + 1) r(day)`;
}

/**
 * `newYorkDayOf` for many rows: joined to `days` (rows of `newYorkDaysTableSql` covering them) as
 * `alias`, the day of `seconds`. With the offset between -5 h and -4 h, the day is the one of the
 * latest offset or the one before it, whichever has started by then.
 */
export function newYorkDayFromTableSql(seconds: string, days: string, alias = 'd'): { join: string; day: string } {
  return {
    join: `JOIN ${days} ${alias} ON ${alias}.day = floor((${seconds} + ${LATEST_OFFSET_SECONDS}) / ${SECONDS_PER_DAY})::BIGINT`,
    day: `CASE WHEN ${seconds} >= ${alias}.starts_at THEN ${alias}.day ELSE ${alias}.day - 1 END`,
  };
}
