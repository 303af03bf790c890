/**
 * What changed in the exports since the previous night, decided exactly (docs/incremental-nights.md):
 * every row of every file is hashed, and the hashes are added up per file and per day the row
 * belongs to (a multiset digest: order does not matter, every added, removed or altered row changes
 * it). A night compares its table with the previous night's: the earliest day whose digest
 * differs is where it starts recomputing; a file whose rows belong to no day (tokens, sub-accounts,
 * seasons, multipliers) has one digest for the whole file, and any change there makes the night full.
 *
 * Each row's 64-bit hash of its columns as written is summed exactly as HUGEINT, with the row
 * count: an altered row goes unseen only if its new hash equals its old one (one chance in 2^64).
 */
import type { Database } from '../database.ts';
import type { InputFile } from '../input/read.ts';
import { dayText } from './days.ts';
import { newYorkDayOfSql } from '../../core/new-york-day.ts';

/**
 * What a row is grouped by in the scan, for the files whose rows have a day: the day itself, as
 * days since 1970-01-01, or for a balance row its hour since 1970 (`hourly`), whose New York date
 * is found once per hour afterwards rather than once per row (core/new-york-day.ts). The hour is
 * floored, so that a row is never put in a later day than its own: before 1883 New York's days
 * started between hours, and a day's first minutes count for the day before, which only starts
 * a night's recomputing a day earlier. Null for the other files.
 */
const ROW_DAY: Record<string, { sql: (valueOfColumn: (column: string) => string) => string; hourly?: true } | null> = {
  balances: { sql: (column) => `floor(${column('timestamp')} / 3600)::BIGINT`, hourly: true },
  prices: { sql: (column) => `(${column('date')} - DATE '1970-01-01')::INTEGER` },
  points: { sql: (column) => `(${column('date')} - DATE '1970-01-01')::INTEGER` },
  tokens: null,
  venue_b_accounts: null,
  multipliers: null,
  seasons: null,
};

/** The table `input_days`: (file, day, rows, digest) for every file, day null for files without days. */
export async function computeInputDays(db: Database, inputs: InputFile[]): Promise<void> {
  const parts = inputs.map((input) => {
    const columns = input.contract.columns.map((column) => `"${column.name}"`);
    const valueOfColumn = (name: string) => input.columns.find((column) => column.contract.name === name)!.value;
    const day = ROW_DAY[input.contract.table];
    if (day === undefined) throw new Error(`no day rule for ${input.contract.table}: build/compute/input-days.ts must name one`);
    const scan = `SELECT ${day ? day.sql(valueOfColumn) : 'NULL'} AS unit, count(*)::BIGINT AS rows,
                         sum(hash(${columns.join(', ')})::HUGEINT) AS digest
                  FROM ${input.view} GROUP BY unit`;
    const dayOfUnit = day?.hourly ? newYorkDayOfSql('unit * 3600') : 'unit::INTEGER';
    return `SELECT '${input.contract.file}' AS file, ${dayOfUnit} AS day, sum(rows)::BIGINT AS rows, sum(digest) AS digest
            FROM (${scan}) GROUP BY ALL`;
  });
  await db.run(`CREATE TABLE input_days AS ${parts.join('\nUNION ALL\n')}`);
}

export interface InputChange {
  file: string;
  /** The earliest day whose rows differ; null for a file whose rows belong to no day. */
  day: number | null;
}

/**
 * The files whose rows differ from the previous night's digest table (a Parquet file of the
 * same columns), each with the earliest day that differs; files without days that differ at all.
 */
export async function changedInputs(db: Database, previous: string): Promise<InputChange[]> {
  const rows = await db.rows<{ file: string; day: number | null }>(`
    WITH before AS (SELECT file, day, rows, digest FROM read_parquet(${previous})),
    differing AS (
      SELECT coalesce(n.file, b.file) AS file, coalesce(n.day, b.day) AS day
      FROM input_days n FULL OUTER JOIN before b ON b.file = n.file AND b.day IS NOT DISTINCT FROM n.day
      WHERE n.rows IS DISTINCT FROM b.rows OR n.digest IS DISTINCT FROM b.digest
    )
    SELECT file, min(day) AS day FROM differing GROUP BY file ORDER BY file`);
  return rows.map((row) => ({ file: row.file, day: row.day === null ? null : Number(row.day) }));
}

/** A change in the words of the night's summary: `points.parquet from 2026-03-04`. */
export function describeChange(change: InputChange): string {
  return change.day === null ? `${change.file} changed` : `${change.file} changed from ${dayText(change.day)}`;
}
