/**
 * Tiny Parquet fixtures built from literal rows, and a build over them with a pinned `now`.
 * Tables left out are written empty (with their columns); tokens default to every key on chains
 * 1, 10 and 8453 with 18 decimals (venueBUsdc: 6).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { buildSnapshot, type BuildSummary } from '../../build/index.ts';
import { resolveBuildConfig, type BuildOptions } from '../../build/config.ts';
import { ThreadCache } from './thread-cache.ts';
import { openDatabase, sqlString, type Database } from '../../build/database.ts';
import { TOKEN_KEYS } from '../../schemas/token-keys.ts';
import { isPublished } from '../../tree/bucket.ts';

type Value = string | number | bigint | boolean | null | RawSql;

/** A value written as SQL, for what no JS literal expresses (NaN, infinity). */
export class RawSql {
  constructor(readonly sql: string) {}
}
export type Row = Record<string, Value>;
export type Tables = Partial<Record<TableName, Row[]>>;
export type TableName = keyof typeof COLUMNS;

export const COLUMNS = {
  balances: {
    chain_id: 'BIGINT',
    block_number: 'BIGINT',
    log_index: 'INTEGER',
    tx_hash: 'VARCHAR',
    timestamp: 'BIGINT',
    address: 'VARCHAR',
    token: 'VARCHAR',
    balance: 'VARCHAR',
  },
  tokens: { chain_id: 'BIGINT', token: 'VARCHAR', decimals: 'INTEGER' },
  venue_b_accounts: { chain_id: 'BIGINT', account: 'VARCHAR', owner: 'VARCHAR' },
  prices: { chain_id: 'BIGINT', token: 'VARCHAR', date: 'DATE', usd_price: 'DOUBLE' },
  points: { season: 'INTEGER', date: 'DATE', address: 'VARCHAR', points: 'DOUBLE' },
  multipliers: { season: 'INTEGER', position: 'VARCHAR', multiplier: 'DOUBLE', first_day: 'DATE', last_day: 'DATE' },
  seasons: { season: 'INTEGER', as_of: 'DATE' },
} as const;

export const DEFAULT_TOKENS: Row[] = [1, 10, 8453].flatMap((chain_id) =>
  TOKEN_KEYS.map((token) => ({ chain_id, token, decimals: token === 'venueBUsdc' ? 6 : 18 })),
);

/** Column types to write instead of the contract's, per table (to test type checks). */
export type TypeOverrides = Partial<Record<TableName, Record<string, string | null>>>;

let connection: DuckDBConnection | null = null;
async function duck(): Promise<DuckDBConnection> {
  connection ??= await (await DuckDBInstance.create(':memory:', { threads: '1' })).connect();
  return connection;
}

/** sha256 of a file's bytes. */
export function fileHash(file: string): string {
  return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

/** Every file under `dir` (a link to a tree followed), as its path relative to `dir`. */
export function treePaths(dir: string): string[] {
  const root = fs.realpathSync(dir);
  return fs
    .readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)));
}

/**
 * The files of a tree the store holds (every file but the static hosts' own): tests count what a
 * command did from the tree itself, not from the sample's figures written out.
 */
export function publishedPaths(dir: string): string[] {
  return treePaths(dir).filter(isPublished);
}

/** Every file under `dir` (relative path) with the sha256 of its bytes. */
export function treeHashes(dir: string): Map<string, string> {
  return new Map(treePaths(dir).map((file) => [file, fileHash(path.join(dir, file))]));
}

const tempDirs: string[] = [];
// Removed when the test process ends, so that runs of the suite do not pile up trees in /tmp.
process.on('exit', () => {
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** A fresh folder under the system's temporary folder, removed when the test process ends. */
export function tempDir(prefix = 'ws-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

/** A DuckDB database of the build's own settings in a fresh temporary folder, for tests of its SQL. */
export function scratchDatabase(options: { threads?: number; memoryLimit?: string } = {}): Promise<Database> {
  const root = tempDir();
  return openDatabase({
    file: path.join(root, 'test.duckdb'),
    tempDir: path.join(root, 'spill'),
    threads: options.threads ?? 2,
    memoryLimit: options.memoryLimit ?? '256MB',
  });
}

function literal(value: Value): string {
  if (value === null) return 'NULL';
  if (value instanceof RawSql) return value.sql;
  if (typeof value === 'string') return sqlString(value);
  return String(value);
}

/**
 * Writes the seven Parquet files of `tables` into `dir`. A type of null leaves the column out.
 * `generated` gives a table as a SELECT instead, for tables too large to list row by row.
 */
export async function writeInputs(
  dir: string,
  tables: Tables,
  overrides: TypeOverrides = {},
  generated: Partial<Record<TableName, string>> = {},
): Promise<string> {
  const db = await duck();
  fs.mkdirSync(dir, { recursive: true });
  for (const [table, contractColumns] of Object.entries(COLUMNS) as [TableName, Record<string, string>][]) {
    const columns = { ...contractColumns, ...overrides[table] };
    const names = Object.keys(columns).filter((name) => columns[name] !== null);
    const rows = tables[table] ?? (table === 'tokens' ? DEFAULT_TOKENS : []);
    const name = `fixture_${table}`;
    await db.run(`CREATE OR REPLACE TABLE ${name} (${names.map((column) => `"${column}" ${columns[column]}`).join(', ')})`);
    if (rows.length > 0) {
      const values = rows.map((row) => `(${names.map((column) => literal(row[column] ?? null)).join(', ')})`);
      await db.run(`INSERT INTO ${name} VALUES ${values.join(', ')}`);
    }
    await db.run(
      `COPY ${generated[table] === undefined ? name : `(${generated[table]})`} TO ${sqlString(path.join(dir, `${table}.parquet`))} (FORMAT parquet)`,
    );
  }
  return dir;
}

export interface Built {
  out: string;
  summary: BuildSummary;
  /** With `manifest: true`, the `--manifest FILE` the build wrote (`<sha256>  <path>` lines). */
  manifest: string | null;
  /** A tree file's text, and parsed (tree-relative path). */
  text(file: string): string;
  json(file: string): any;
  exists(file: string): boolean;
}

/** Runs `action` and returns the error it throws, failing when it does not throw. */
export async function thrown(action: () => Promise<unknown>): Promise<Error> {
  try {
    await action();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error, none was thrown');
}

export const PINNED_NOW = '2025-11-21T17:00:00Z';

/** The writing threads every fixture build of this process shares (thread-cache.ts). */
const threadCache = new ThreadCache();

/** buildSnapshot of `options` on the writing threads this process's earlier builds left (a thread costs about a CPU-second to start). */
export async function buildReusingThreads(options: BuildOptions): Promise<BuildSummary> {
  return buildSnapshot(resolveBuildConfig(options), { threadCache });
}

/** Builds `tables` into a fresh folder with `now` pinned (default: L = 2025-11-20). */
export async function build(
  tables: Tables,
  options: {
    now?: string;
    shard?: string;
    overrides?: TypeOverrides;
    generated?: Partial<Record<TableName, string>>;
    manifest?: boolean;
    /** As `--allow-empty` and `--allow-distant-now`: the library refuses both unless asked, as the CLI does. */
    allowEmpty?: boolean;
    allowDistantNow?: boolean;
    /** As `--packed`: the archives, index and manifest (a packed folder's files are not readable through `text`). */
    packed?: boolean;
  } = {},
): Promise<Built> {
  const root = tempDir();
  const input = await writeInputs(path.join(root, 'input'), tables, options.overrides, options.generated);
  const out = path.join(root, 'public');
  const manifest = options.manifest ? path.join(root, 'tree.sha256') : null;
  // One document thread: a fixture's few wallets gain nothing from two. The threads are kept
  // between the builds of a test process: starting them cost about a CPU-second per build.
  const { allowEmpty, allowDistantNow } = options;
  const config = resolveBuildConfig({
    input,
    out,
    now: options.now ?? PINNED_NOW,
    shard: options.shard,
    progress: 'quiet',
    threads: 1,
    allowEmpty,
    allowDistantNow,
    packed: options.packed,
    ...(manifest ? { manifest } : {}),
  });
  const summary = await buildSnapshot(config, { threadCache });
  const text = (file: string) => fs.readFileSync(path.join(out, file), 'utf8');
  return {
    out,
    summary,
    manifest,
    text,
    json: (file) => JSON.parse(text(file)),
    exists: (file) => fs.existsSync(path.join(out, file)),
  };
}

/** A balances row with defaults (chain 1, token uty, tx = block), so a test names only what matters. */
export function balance(
  row: Partial<Record<keyof typeof COLUMNS.balances, Value>> & { address: string; block_number: number; balance: string },
): Row {
  return {
    chain_id: 1,
    log_index: 0,
    tx_hash: `0xtx${row.block_number}`,
    timestamp: 1_750_000_000 + Number(row.block_number) * 12,
    token: 'uty',
    ...row,
  };
}

/**
 * One wallet holding every token on three chains since late 2024: its daily document is about
 * 800 KB at a year's history, while DuckDB's own files stay small (the suites that make a disk
 * refuse the writes with a file size limit).
 */
export function everyTokenOnThreeChains(address: string): Row[] {
  return Array.from({ length: 3 }, (_, c) =>
    TOKEN_KEYS.map((token, t) =>
      balance({
        address,
        chain_id: [1, 10, 8453][c]!,
        token,
        block_number: 1 + c * 10 + t,
        timestamp: 1_732_000_000 + c * 10 + t,
        balance: '1000',
      }),
    ),
  ).flat();
}

/** Eight wallets with one balance and one season-1 points row each: the publish suites' small night. */
export function eightWalletNight(): Tables {
  const wallets = [A, B, C, ...Array.from({ length: 5 }, (_, i) => `0x${String(i + 1).repeat(40)}`)];
  return {
    balances: wallets.map((address, i) => balance({ address, block_number: i + 1, balance: `${i + 1}000000000000000000` })),
    seasons: [{ season: 1, as_of: null }],
    points: wallets.map((address, i) => ({ season: 1, date: '2025-11-19', address, points: 10 + i })),
  };
}

/** Unix seconds of a New York wall-clock time such as '2025-03-09 00:30' (offset given explicitly). */
export function unix(isoWithOffset: string): number {
  const ms = Date.parse(isoWithOffset);
  if (Number.isNaN(ms)) throw new Error(`bad time ${isoWithOffset}`);
  return ms / 1000;
}

export const A = `0x${'a'.repeat(40)}`;
export const B = `0x${'b'.repeat(40)}`;
export const C = `0x${'c'.repeat(40)}`;
export const SUB = `0x${'5'.repeat(40)}`;
export const SUB2 = `0x${'6'.repeat(40)}`;

/** Every file under `dir` with its bytes and modification time: equal before and after means nothing changed. */
export function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isDirectory()) continue;
    const file = path.join(entry.parentPath, entry.name);
    files[path.relative(dir, file)] = `${fs.statSync(file).mtimeMs} ${fs.readFileSync(file, 'utf8')}`;
  }
  return files;
}
