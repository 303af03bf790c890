/**
 * Stage 1, read: find the seven Parquet files, make sure each is readable and has every column of
 * the contract in a type that casts to it without loss, and expose each as a view `input_<table>`.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { Database } from '../database.ts';
import { literalPathSql } from '../database.ts';
import { UserError, isOutOfMemory, isWriteRefused, messageOf } from '../../core/errors.ts';
import { NO_FAULTS, type InjectedFaults } from '../faults.ts';
import { INPUT_FILES, type ColumnContract, type FileContract } from './contract.ts';
import { TOKEN_KEYS } from '../../schemas/token-keys.ts';

export interface ColumnReader {
  contract: ColumnContract;
  sourceType: string;
  /** SQL that is true for a row whose value breaks the contract (nulls included). */
  violation: string;
  /** SQL for the value once checked, in its normalised type. */
  value: string;
  /** SQL that renders the raw value for an error message. */
  shown: string;
}

export interface InputFile {
  contract: FileContract;
  path: string;
  /** The path DuckDB reads (see OpenedInput). */
  readPath: string;
  view: string;
  columns: ColumnReader[];
}

/**
 * One input file, opened once for the whole build. DuckDB reads it through `/proc/self/fd/N`,
 * the very file we opened: a file renamed over it during the build (the next export arriving)
 * changes nothing of what this build reads, however many times a stage scans it.
 */
export interface OpenedInput {
  contract: FileContract;
  /** The path the user knows. */
  file: string;
  /** The path DuckDB opens. */
  readPath: string;
  handle: fsp.FileHandle | null;
}

/**
 * Finds and opens the seven files, refusing up front what is not a regular file: a FIFO or a
 * device would block DuckDB's read forever. Async calls, so that a hung mount leaves the event
 * loop free to hear Ctrl-C. Missing files are reported together with the columns missing from the
 * files that are there, so that one run lists everything to fix.
 */
export async function openInputs(inputDir: string, signal: AbortSignal): Promise<OpenedInput[]> {
  const folder = await fsp.stat(inputDir).catch(() => null);
  if (folder === null) throw new UserError(`input directory ${inputDir} does not exist (set it with --input DIR)`);
  if (!folder.isDirectory())
    throw new UserError(`--input ${inputDir} is not a directory (it must be the folder holding the seven Parquet files)`);
  const opened: OpenedInput[] = [];
  let missing = false;
  try {
    for (const contract of INPUT_FILES) {
      if (signal.aborted) throw signal.reason;
      const input = await openInput(inputDir, contract);
      if (input === null) missing = true;
      else opened.push(input);
    }
    if (missing) {
      const { problems, causes } = await problemsOfIncompleteInput(inputDir, opened);
      throw incompleteInput(problems, causes);
    }
  } catch (error) {
    await closeInputs(opened);
    throw error;
  }
  return opened;
}

async function openInput(inputDir: string, contract: FileContract): Promise<OpenedInput | null> {
  const file = path.join(inputDir, contract.file);
  let stat: fs.Stats;
  try {
    stat = await fsp.stat(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw cannotOpen(contract, file, error);
  }
  if (!stat.isFile()) throw notRegular(contract, file, stat);
  if (!FD_PATHS) return { contract, file, readPath: file, handle: null };
  // O_NONBLOCK: should the file have become a FIFO since the stat, opening it still returns at once.
  const handle = await fsp.open(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK).catch((error: unknown) => {
    throw cannotOpen(contract, file, error);
  });
  const opened = await handle.stat();
  if (!opened.isFile()) {
    await handle.close();
    throw notRegular(contract, file, opened);
  }
  return { contract, file, readPath: `/proc/self/fd/${handle.fd}`, handle };
}

/**
 * What is wrong with an input that lacks files, file by file: each file missing, and the problems
 * of those that are there, read by a DuckDB of their own (the build's is opened only once every
 * file is, after --out is claimed).
 */
async function problemsOfIncompleteInput(inputDir: string, opened: OpenedInput[]): Promise<{ problems: string[]; causes: unknown[] }> {
  const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  const connection = await instance.connect();
  const rows = async (sql: string) => (await connection.runAndReadAll(sql)).getRowObjectsJS() as unknown as DescribedColumn[];
  try {
    const problems: string[] = [];
    const causes: unknown[] = [];
    for (const contract of INPUT_FILES) {
      const input = opened.find((candidate) => candidate.contract === contract);
      if (input === undefined) {
        problems.push(`missing input file ${contract.file} in ${inputDir}`);
      } else {
        const described = await describeInput(rows, input);
        problems.push(...described.problems);
        causes.push(...described.causes);
      }
    }
    return { problems, causes };
  } finally {
    connection.disconnectSync();
    instance.closeSync();
  }
}

/**
 * Missing files, missing columns and files that are not Parquet, all in one error: a problem alone
 * on one line as it always was, several as a list. `causes`: DuckDB's errors for files it could
 * not read, kept for --debug (several as one AggregateError).
 */
function incompleteInput(problems: string[], causes: unknown[]): UserError {
  const cause =
    causes.length === 0
      ? undefined
      : causes.length === 1
        ? causes[0]
        : new AggregateError(causes, `${causes.length} files could not be read`);
  if (problems.length === 1) {
    const [problem] = problems as [string];
    return new UserError(
      problem.startsWith('missing input file')
        ? `${problem} (all seven Parquet files are required; an empty table is a file with zero rows)`
        : problem,
      1,
      { cause },
    );
  }
  const lines = problems.map((problem) => `  - ${problem}`).join('\n');
  return new UserError(
    `the input is incomplete, ${problems.length} problems (all seven Parquet files are required, each with the columns of docs/input.md; an empty table is a file with zero rows):\n${lines}`,
    1,
    { cause },
  );
}

/** An input the system would not let us stat or open (permissions, a hung mount's error). */
function cannotOpen(contract: FileContract, file: string, error: unknown): UserError {
  return new UserError(`${contract.file}: ${file} cannot be opened (${messageOf(error)})`, 1, { cause: error });
}

/** Where the kernel lets a process open its own descriptors by path (Linux). */
export const FD_PATHS = fs.existsSync('/proc/self/fd');

function notRegular(contract: FileContract, file: string, stat: fs.Stats): UserError {
  const kind = stat.isFIFO() ? 'a FIFO (named pipe)' : stat.isDirectory() ? 'a directory' : stat.isSocket() ? 'a socket' : 'a device';
  return new UserError(
    `${contract.file}: ${file} is ${kind}, not a regular file; the build reads each input as a Parquet file, which a pipe or device cannot be`,
  );
}

export async function closeInputs(inputs: OpenedInput[]): Promise<void> {
  await Promise.all(inputs.map((input) => input.handle?.close()));
}

/**
 * An error DuckDB raised while reading an input, in any stage (a damaged page is found only when
 * a query reaches it): bad input naming the file, exit 1. Null for anything else.
 */
export function inputReadError(inputs: OpenedInput[], error: unknown): UserError | null {
  if (error instanceof UserError) return null;
  const first = firstLine(error);
  if (isOutOfMemory(first) || isWriteRefused(first)) return null;
  for (const input of inputs) {
    if (input.readPath !== input.file && first.includes(input.readPath)) {
      return new UserError(
        `${input.contract.file}: cannot be read as a Parquet file (${first.replaceAll(input.readPath, input.file)})`,
        1,
        { cause: error },
      );
    }
  }
  return null;
}

export async function readInputs(db: Database, inputs: OpenedInput[], faults: InjectedFaults = NO_FAULTS): Promise<InputFile[]> {
  // An injected fault (build/faults.ts): a DuckDB read that blocks, as on a hung mount.
  const blocking = faults.blockingRead;
  if (blocking) await db.run(`SELECT * FROM read_csv(${literalPathSql(blocking)})`);
  const described = [];
  for (const input of inputs) described.push(await describeInput((sql) => db.rows<DescribedColumn>(sql), input));
  const problems = described.flatMap((file) => file.problems);
  if (problems.length > 0)
    throw incompleteInput(
      problems,
      described.flatMap((file) => file.causes),
    );
  const files: InputFile[] = [];
  for (const { input, types } of described) {
    const view = `input_${input.contract.table}`;
    try {
      await db.run(`CREATE OR REPLACE VIEW ${view} AS SELECT * FROM read_parquet(${literalPathSql(input.readPath)})`);
    } catch (error) {
      throw scanError({ contract: input.contract, path: input.file, readPath: input.readPath }, error);
    }
    const columns = input.contract.columns.map((column) => {
      const sourceType = types.get(column.name)!;
      return columnReader(column, sourceType) ?? wrongTypeReader(column, sourceType);
    });
    files.push({ contract: input.contract, path: input.file, readPath: input.readPath, view, columns });
  }
  return files;
}

interface DescribedColumn {
  column_name: string;
  column_type: string;
}

/** A file's columns and their types, and what is wrong with them: columns missing, or a file that is not Parquet. */
async function describeInput(
  rows: (sql: string) => Promise<DescribedColumn[]>,
  input: OpenedInput,
): Promise<{ input: OpenedInput; types: Map<string, string>; problems: string[]; causes: unknown[] }> {
  const { contract, file } = input;
  let described: DescribedColumn[];
  try {
    described = await rows(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet(${literalPathSql(input.readPath)}))`);
  } catch (error) {
    const first = firstLine(error);
    if (isOutOfMemory(first) || isWriteRefused(first)) throw error;
    return {
      input,
      types: new Map(),
      problems: [`${contract.file}: cannot be read as a Parquet file (${first.replaceAll(input.readPath, file)})`],
      causes: [error],
    };
  }
  const types = new Map(described.map((row) => [row.column_name, row.column_type]));
  const has = [...types.keys()].join(', ') || 'no columns';
  const problems = contract.columns
    .filter((column) => !types.has(column.name))
    .map((column) => `${contract.file}: missing column "${column.name}" (expected ${column.expected}); the file has ${has}`);
  return { input, types, problems, causes: [] };
}

function firstLine(error: unknown): string {
  return messageOf(error).split('\n')[0]!;
}

/**
 * A failure while scanning an input file: a damaged file is the user's to fix; an error in our
 * own SQL (parser, binder, catalog) is a bug, and running out of memory a matter of settings
 * (errors.ts): neither must be reported as a damaged file.
 */
export function scanError(input: Pick<InputFile, 'contract' | 'path' | 'readPath'>, error: unknown): Error {
  const first = firstLine(error);
  if (/^(Parser|Binder|Catalog) Error/.test(first) || isOutOfMemory(first) || isWriteRefused(first)) return error as Error;
  return new UserError(`${input.contract.file}: cannot be read as a Parquet file (${first.replaceAll(input.readPath, input.path)})`, 1, {
    cause: error,
  });
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;
const shownSql = (column: string) => `coalesce(CAST(${column} AS VARCHAR), 'null')`;

const NORMALISED_TYPE = {
  integer: 'BIGINT',
  amount: 'HUGEINT',
  number: 'DOUBLE',
  date: 'DATE',
  address: 'VARCHAR',
  token: 'VARCHAR',
  text: 'VARCHAR',
} as const;

/**
 * A column whose type cannot hold the contract: every value in it is a violation (reported with
 * the column type), but an empty table or an all-null nullable column is still valid, as writers
 * give such columns whatever type they like.
 */
function wrongTypeReader(contract: ColumnContract, sourceType: string): ColumnReader {
  const c = quoted(contract.name);
  return {
    contract,
    sourceType,
    violation: contract.nullable ? `(${c} IS NOT NULL)` : 'true',
    value: `NULL::${NORMALISED_TYPE[contract.kind]}`,
    shown: shownSql(c),
  };
}

const INTEGER_TYPE = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|DECIMAL\(\d+,0\))$/;
const NUMERIC_TYPE =
  /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|DECIMAL\(\d+,\d+\)|FLOAT|DOUBLE)$/;
const TEXT_TYPE = 'VARCHAR';

/** The SQL that checks and normalises one column, or null when its type cannot hold the contract. */
function columnReader(contract: ColumnContract, sourceType: string): ColumnReader | null {
  const c = quoted(contract.name);
  const shown = shownSql(c);
  const isText = sourceType === TEXT_TYPE;
  const make = (violation: string, value: string): ColumnReader => ({
    contract,
    sourceType,
    violation: contract.nullable ? `(${c} IS NOT NULL AND (${violation}))` : `(${c} IS NULL OR (${violation}))`,
    value,
    shown,
  });
  switch (contract.kind) {
    case 'integer': {
      const [low, high] = contract.range!;
      const inRange = (expression: string) => `coalesce(${expression} BETWEEN ${low}::HUGEINT AND ${high}::HUGEINT, false)`;
      if (INTEGER_TYPE.test(sourceType)) return make(`NOT ${inRange(`TRY_CAST(${c} AS HUGEINT)`)}`, `CAST(${c} AS BIGINT)`);
      if (isText) {
        return make(`NOT regexp_full_match(${c}, '[+-]?[0-9]+') OR NOT ${inRange(`TRY_CAST(${c} AS HUGEINT)`)}`, `CAST(${c} AS BIGINT)`);
      }
      return null;
    }
    case 'amount': {
      // Parquet has no 128-bit integer; exact amounts arrive as text or DECIMAL(38,0).
      if (isText) return make(`NOT regexp_full_match(${c}, '0*[0-9]{1,38}')`, `CAST(${c} AS HUGEINT)`);
      if (INTEGER_TYPE.test(sourceType)) {
        const tooLarge = /HUGEINT/.test(sourceType) ? ` OR ${c} >= CAST('1${'0'.repeat(38)}' AS ${sourceType})` : '';
        // DuckDB casts a 128-bit DECIMAL to HUGEINT by a 128-bit division, even by 10^0; through
        // the decimal text is about three times faster, with the same values exactly.
        const wide = /^DECIMAL\((19|[2-3]\d),0\)$/.test(sourceType);
        return make(`${c} < 0${tooLarge}`, wide ? `CAST(CAST(${c} AS VARCHAR) AS HUGEINT)` : `CAST(${c} AS HUGEINT)`);
      }
      return null;
    }
    case 'number': {
      const asDouble = isText ? `TRY_CAST(${c} AS DOUBLE)` : `CAST(${c} AS DOUBLE)`;
      if (!isText && !NUMERIC_TYPE.test(sourceType)) return null;
      const negative = contract.nonNegative ? ` OR ${asDouble} < 0` : '';
      return make(`${asDouble} IS NULL OR NOT isfinite(${asDouble})${negative}`, asDouble);
    }
    case 'date': {
      if (sourceType === 'DATE') return make(`NOT isfinite(${c})`, c);
      if (isText) {
        return make(
          `NOT regexp_full_match(${c}, '[0-9]{4}-[0-9]{2}-[0-9]{2}') OR TRY_CAST(${c} AS DATE) IS NULL`,
          `TRY_CAST(${c} AS DATE)`,
        );
      }
      return null;
    }
    case 'address':
      return isText ? make(`NOT regexp_full_match(${c}, '0x[0-9a-fA-F]{40}')`, `lower(${c})`) : null;
    case 'token':
      return isText ? make(`${c} NOT IN (${TOKEN_KEYS.map((key) => `'${key}'`).join(', ')})`, c) : null;
    case 'text':
      return make('false', `CAST(${c} AS VARCHAR)`);
  }
}
