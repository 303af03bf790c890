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
 *
 * The table is made by whichever scan reads every row anyway: an incremental night's one scan of
 * the seven files (scanInputDays, before anything is checked), or a full night's checks and load
 * (the points' check scan, the balances' load: build/input/). Every way computes a row's unit, day
 * and hash with the expressions of this file, so that the digests of two nights compare whichever
 * way each was made.
 */
import type { Database } from '../database.ts';
import type { InputFile } from '../input/read.ts';
import { dayText } from './days.ts';
import { newYorkDayOfSql, newYorkDayStart } from '../../core/new-york-day.ts';

/** The digest table's shape; `first_at` and `last_at` are a balance day's first and last timestamps (null for other files). */
export const INPUT_DAYS_TABLE = `CREATE TABLE input_days (file VARCHAR, day INTEGER, rows BIGINT, digest HUGEINT, first_at BIGINT, last_at BIGINT)`;

/** The column whose value gives a row its day, for the files whose rows have one. */
const DAY_COLUMN: Record<string, string | null> = {
  balances: 'timestamp',
  prices: 'date',
  points: 'date',
  tokens: null,
  venue_b_accounts: null,
  multipliers: null,
  seasons: null,
};

/** Whether a file's rows belong to days (balances, prices, points). */
export function isDated(input: InputFile): boolean {
  const column = DAY_COLUMN[input.contract.table];
  if (column === undefined) throw new Error(`no day rule for ${input.contract.table}: build/compute/input-days.ts must name one`);
  return column !== null;
}

/**
 * A row's hash: its columns as written, in the contract's order (the same expression in every scan
 * that digests rows). Over the file's own view, or over `alias.` columns of a relation exposing them.
 */
export function rowHashSql(input: InputFile, prefix = ''): string {
  return `hash(${input.contract.columns.map((column) => `${prefix}"${column.name}"`).join(', ')})`;
}

/**
 * What a row is grouped by: its day, as days since 1970-01-01, or for a balance row its hour since
 * 1970 (`floor(timestamp / 3600)`), whose New York date is found once per hour afterwards (dayOfUnitSql)
 * rather than once per row. A row whose day column breaks its rule is given no unit (null): its
 * file then changed on no day, which makes the night full, and the full night refuses the row in
 * the words of `build` (the scan itself never fails on a bad value). `value` is the column's
 * checked value (its reader's `value`) or an expression that gives it. Null for the other files.
 */
export function unitSql(input: InputFile, value?: string): string | null {
  const name = DAY_COLUMN[input.contract.table];
  if (!name) return null;
  const column = input.columns.find((candidate) => candidate.contract.name === name)!;
  const checked = value ?? `CASE WHEN ${column.violation} THEN NULL ELSE ${column.value} END`;
  return input.contract.table === 'balances' ? `floor(${checked} / 3600)::BIGINT` : `(${checked} - DATE '1970-01-01')::INTEGER`;
}

/** The day (days since 1970-01-01) of a unit of `input`'s rows (unitSql). */
function dayOfUnitSql(input: InputFile, unit: string): string {
  return input.contract.table === 'balances' ? newYorkDayOfSql(`${unit} * 3600`) : `${unit}::INTEGER`;
}

/** The day (days since 1970-01-01) of a balance row's timestamp `ts`, as the digests place it. */
export function dayOfInstantSql(ts: string): string {
  return newYorkDayOfSql(`floor(${ts} / 3600)::BIGINT * 3600`);
}

/**
 * The first second of day `day`'s balance rows: a row is on `day` or later exactly when its
 * timestamp is at least this (its hour's New York date is, dayOfUnitSql). The load and the shard
 * folders' segments cut the balances by it.
 */
export function firstSecondOfDay(day: number): number {
  return Math.ceil(newYorkDayStart(day) / 3600) * 3600;
}

/**
 * The per-unit aggregate of a scan that digests rows: `rows`, `digest` (the hashes summed exactly)
 * and, for balances, the unit's first and last timestamps. `hash` and `at` are SQL over the rows.
 */
export function unitAggregatesSql(hash: string, at: string | null): string {
  return `count(*)::BIGINT AS rows, sum(${hash}::HUGEINT) AS digest, ${at ? `min(${at})` : 'NULL'}::BIGINT AS first_at, ${at ? `max(${at})` : 'NULL'}::BIGINT AS last_at`;
}

/**
 * Rows of `input_days` for `input`, from a relation of unit aggregates (`unit`, `rows`, `digest`,
 * `first_at`, `last_at`, as unitAggregatesSql makes them).
 */
export function inputDaysOfUnitsSql(input: InputFile, units: string): string {
  const day = isDated(input) ? dayOfUnitSql(input, 'unit') : 'NULL::INTEGER';
  return `SELECT '${input.contract.file}' AS file, ${day} AS day, sum(rows)::BIGINT AS rows, sum(digest) AS digest,
                 min(first_at) AS first_at, max(last_at) AS last_at
          FROM (${units}) GROUP BY ALL`;
}

/** The timestamp column's checked value of the balances (null for a bad one), for `first_at` and `last_at`. */
function balanceInstantSql(input: InputFile): string | null {
  if (input.contract.table !== 'balances') return null;
  const column = input.columns.find((candidate) => candidate.contract.name === 'timestamp')!;
  return `CASE WHEN ${column.violation} THEN NULL ELSE ${column.value} END`;
}

/** One scan of each file in `inputs` into `input_days` (which exists): every row hashed, summed per file and unit. */
export async function scanInputDays(db: Database, inputs: InputFile[]): Promise<void> {
  for (const input of inputs) {
    const unit = unitSql(input) ?? 'NULL::BIGINT';
    const units = `SELECT ${unit} AS unit, ${unitAggregatesSql(rowHashSql(input), balanceInstantSql(input))} FROM ${input.view} GROUP BY unit`;
    await db.run(`INSERT INTO input_days ${inputDaysOfUnitsSql(input, units)}`);
  }
}

export interface InputChange {
  file: string;
  /** The earliest day whose rows differ; null for a file whose rows belong to no day (or a dated row without a day). */
  day: number | null;
}

/**
 * The files whose rows differ from the previous night's digest table (a Parquet file of the
 * same columns), each with the earliest day that differs; files without days that differ at all.
 * A dated file's rows without a day (a bad day value) are a change that belongs to no day.
 */
export async function changedInputs(db: Database, previous: string): Promise<InputChange[]> {
  const rows = await db.rows<{ file: string; day: number | null; undated: boolean }>(`
    WITH before AS (SELECT file, day, rows, digest FROM read_parquet(${previous})),
    differing AS (
      SELECT coalesce(n.file, b.file) AS file, coalesce(n.day, b.day) AS day
      FROM input_days n FULL OUTER JOIN before b ON b.file = n.file AND b.day IS NOT DISTINCT FROM n.day
      WHERE n.rows IS DISTINCT FROM b.rows OR n.digest IS DISTINCT FROM b.digest
    )
    SELECT file, min(day) AS day, bool_or(day IS NULL) AS undated FROM differing GROUP BY file ORDER BY file`);
  return rows.map((row) => ({ file: row.file, day: row.undated || row.day === null ? null : Number(row.day) }));
}

/** A change in the words of the night's summary: `points.parquet from 2026-03-04`. */
export function describeChange(change: InputChange): string {
  return change.day === null ? `${change.file} changed` : `${change.file} changed from ${dayText(change.day)}`;
}

/**
 * The extent of the exports' events as the check of the build instant needs it
 * (build/input/check.ts), read off the digests: the balance rows' count and first and last
 * timestamps, the points rows' count and first and last days. Exact, as the digests cover every
 * row; an incremental night has no other view of the rows it did not load.
 */
export const EXTENT_OF_INPUT_DAYS_SQL = `
  SELECT coalesce(sum(rows) FILTER (WHERE file = 'balances.parquet'), 0)::DOUBLE AS balance_rows,
         min(first_at) FILTER (WHERE file = 'balances.parquet')::DOUBLE AS first_timestamp,
         max(last_at) FILTER (WHERE file = 'balances.parquet')::DOUBLE AS last_timestamp,
         coalesce(sum(rows) FILTER (WHERE file = 'points.parquet'), 0)::DOUBLE AS points_rows,
         strftime(DATE '1970-01-01' + min(day) FILTER (WHERE file = 'points.parquet' AND rows > 0), '%Y-%m-%d') AS first_points,
         strftime(DATE '1970-01-01' + max(day) FILTER (WHERE file = 'points.parquet' AND rows > 0), '%Y-%m-%d') AS last_points
  FROM input_days`;

/**
 * The rows of `input` on day `day` or later, as a predicate over its checked values (dated files
 * only): what an incremental night checks and loads. Its day columns hold good values only (a bad
 * one made the night full), so the cast cannot fail; on an integer or DATE column it is the
 * column itself, which lets DuckDB skip the row groups of earlier days.
 */
export function fromDaySql(input: InputFile, day: number): string {
  const name = DAY_COLUMN[input.contract.table];
  if (!name) throw new Error(`${input.contract.file} has no days`);
  const column = input.columns.find((candidate) => candidate.contract.name === name)!;
  return input.contract.table === 'balances' ? `${column.value} >= ${firstSecondOfDay(day)}` : `${column.value} >= DATE '${dayText(day)}'`;
}
