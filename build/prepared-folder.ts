/**
 * The folder `prepare` writes for one shard, `NIGHT/shard-K-of-N/`, written and read here only:
 *
 *   prepared.json        the night's facts (build instant, inputs' sha256, daily asOf, example
 *                        wallet, leaderboards, seasons index) and the sha256 of every other file,
 *                        itself sealed by the sha256 of its own content
 *   <table>.parquet      one per table the shard's stages read (PREPARED_TABLES): its wallets'
 *                        rows, and the small tables every shard shares
 *   balance_rows.<n>.parquet, points_history_days.<n>.parquet
 *                        the balance rows and the points histories' days, in segments of days
 *                        (each night writes the days it computed, and keeps the earlier nights'
 *                        segments it can reuse)
 *
 * A shard's build reads nothing else: the folder can be copied anywhere without its siblings.
 * Every file is hashed through the descriptor DuckDB then reads, so a file altered after
 * `prepare` wrote it is refused, by name, and one replaced during the build changes nothing.
 */
import crypto from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { UserError } from '../core/errors.ts';
import type { Shard } from '../core/shard.ts';
import { LeaderboardSchema } from '../schemas/leaderboard.ts';
import { NightKindSchema } from '../schemas/night-kind.ts';
import { SeasonsIndexSchema } from '../schemas/seasons.ts';
import { DateStringSchema, LowerCaseAddressSchema } from '../schemas/common.ts';
import { hashThroughHandle } from './input/fingerprint.ts';
import { FD_PATHS } from './input/read.ts';
import { accountsOfWalletsSql, joinOwnerSql, subAccountsOfWalletsSql, walletOfRowSql } from './compute/attribution.ts';
import { firstSecondOfDay } from './compute/input-days.ts';

export const PREPARED_FACTS_FILE = 'prepared.json';

/** `shard-2-of-8`: the folder of shard K of N. */
export const preparedFolderName = (shard: Shard) => `shard-${shard.index}-of-${shard.count}`;
export const PREPARED_FOLDER_NAME = /^shard-([1-9][0-9]*)-of-([1-9][0-9]*)$/;

/**
 * The tables a shard's build reads, with the exact types the night's side makes them in (so every
 * query of the shard's side runs on the same types whichever side made them), and how the night's
 * rows are cut among shards: by the shard of a wallet id column, of an address column, or not at
 * all (every shard gets the whole table).
 */
export interface PreparedTable {
  name: string;
  columns: readonly (readonly [name: string, type: string])[];
  /**
   * SQL over the night's tables giving the rows and a `shard` column (`shardOf` gives the SQL of an
   * address's shard; `from`, the first day a night computed, or null for the whole history); null:
   * the table as it is, in every shard.
   */
  cut: ((shardOf: (address: string) => string, from: number | null) => string) | null;
  /**
   * Written in segments of days (`<table>.<n>.parquet`), which later nights may reuse: `before`
   * gives the SQL that is true for a row of a day before `day` (over the stored columns).
   */
  segmented?: { before: (day: number) => string };
}

export const PREPARED_TABLES: readonly PreparedTable[] = [
  {
    name: 'balance_rows',
    columns: [
      ['chain_id', 'BIGINT'],
      ['block_number', 'BIGINT'],
      ['log_index', 'BIGINT'],
      ['account', 'INTEGER'],
      ['token_index', 'TINYINT'],
      ['raw', 'HUGEINT'],
      ['tx', 'UBIGINT'],
      ['tx_hash', 'VARCHAR'],
      ['ts', 'BIGINT'],
    ],
    // A row counts for its account's owner on the row's chain, else for its account (docs/semantics.md#attribution).
    // Its account is stored as the address's lasting key, which a later night keeps: a full
    // night's keys are its ids; an incremental night's rows (one day's) find theirs.
    cut: (_shardOf, from) =>
      from === null
        ? `SELECT b.*, s.shard FROM balance_rows b ${joinOwnerSql('b')} JOIN address_shards s ON s.id = ${walletOfRowSql('b')}`
        : `SELECT b.* REPLACE (k.key AS account), s.shard FROM balance_rows b ${joinOwnerSql('b')} JOIN address_shards s ON s.id = ${walletOfRowSql('b')}
           JOIN addresses k ON k.id = b.account`,
    segmented: { before: (day) => `ts < ${firstSecondOfDay(day)}` },
  },
  {
    name: 'addresses',
    columns: [
      ['address', 'VARCHAR'],
      ['id', 'INTEGER'],
      ['key', 'INTEGER'],
    ],
    // A shard's wallets, and the sub-accounts they own (a sub-account of owners in two shards is in both).
    cut: () =>
      `SELECT a.address, a.id, a.key, s.shard FROM (${accountsOfWalletsSql('address_shards', ['shard'])}) s JOIN addresses a ON a.id = s.id`,
  },
  {
    name: 'venue_b_accounts',
    columns: [
      ['chain_id', 'BIGINT'],
      ['account', 'VARCHAR'],
      ['owner', 'VARCHAR'],
      ['account_id', 'INTEGER'],
      ['owner_id', 'INTEGER'],
    ],
    cut: () => subAccountsOfWalletsSql('address_shards', ['shard']),
  },
  {
    name: 'participants',
    columns: [
      ['season', 'BIGINT'],
      ['address', 'VARCHAR'],
      ['total_points', 'DOUBLE'],
      ['daily_rate', 'DOUBLE'],
      ['rank', 'BIGINT'],
      ['position_in_order', 'BIGINT'],
      ['total_participants', 'BIGINT'],
    ],
    cut: (shardOf) => `SELECT p.*, ${shardOf('p.address')} AS shard FROM participants p`,
  },
  {
    name: 'points_history_wallets',
    columns: [
      ['wallet', 'INTEGER'],
      ['address', 'VARCHAR'],
      ['season', 'INTEGER'],
    ],
    cut: (shardOf) => `SELECT w.*, ${shardOf('w.address')} AS shard FROM points_history_wallets w`,
  },
  {
    name: 'points_history_days',
    columns: [
      ['wallet', 'INTEGER'],
      ['day', 'INTEGER'],
      ['points', 'DOUBLE'],
      ['total_points', 'DOUBLE'],
      ['rank', 'INTEGER'],
    ],
    // Each day's shard comes with it (build/compute/points-history.ts joins it while the days are
    // in wallet order); an incremental night writes the days it computed only.
    cut: (_shardOf, from) => `SELECT * FROM points_history_days_by_shard ${from === null ? '' : `WHERE day >= ${from}`}`,
    segmented: { before: (day) => `day < ${day}` },
  },
  {
    name: 'tokens',
    columns: [
      ['chain_id', 'BIGINT'],
      ['token', 'VARCHAR'],
      ['decimals', 'BIGINT'],
      ['token_index', 'TINYINT'],
    ],
    cut: null,
  },
  {
    name: 'token_names',
    columns: [
      ['token', 'VARCHAR'],
      ['token_index', 'TINYINT'],
    ],
    cut: null,
  },
  {
    name: 'chains',
    columns: [
      ['chain_id', 'BIGINT'],
      ['chain_index', 'INTEGER'],
      ['chain_text', 'VARCHAR'],
    ],
    cut: null,
  },
  {
    name: 'prices',
    columns: [
      ['chain_id', 'BIGINT'],
      ['token', 'VARCHAR'],
      ['date', 'DATE'],
      ['usd_price', 'DOUBLE'],
    ],
    cut: null,
  },
];

export const tableFile = (table: PreparedTable) => `${table.name}.parquet`;

export type SegmentedTableName = 'balance_rows' | 'points_history_days';

/** The n-th segment of a segmented table in a shard folder. */
export const segmentFile = (table: PreparedTable, n: number) => `${table.name}.${n}.parquet`;
const SEGMENT_FILE = /^(balance_rows|points_history_days)\.[1-9][0-9]*\.parquet$/;

/** The tables a prepared folder carries: what `load prepared` makes, and the night must have made. */
export const PREPARED_TABLE_NAMES = PREPARED_TABLES.map((table) => table.name);

/** 2^64, as a HUGEINT: a 128-bit integer is stored as its high and low 64 bits. */
const TWO_TO_64 = '18446744073709551616::HUGEINT';

/**
 * A table's columns as Parquet stores them. Parquet has no 128-bit integer (DuckDB would write a
 * HUGEINT as a DOUBLE): a raw balance goes as two columns, its high 64 bits (`raw_high`, signed)
 * and its low 64 bits (`raw_low`, unsigned), which read back exactly as integers; DECIMAL(38,0),
 * which format 3 used, took 1.1 s a million rows to read back as HUGEINT (0.06 s this way).
 */
export function storedColumnsSql(table: PreparedTable): string {
  return table.columns
    .map(([name, type]) =>
      type === 'HUGEINT'
        ? `(${name} >> 64)::BIGINT AS ${name}_high, (${name} & 18446744073709551615::HUGEINT)::UBIGINT AS ${name}_low`
        : `CAST(${name} AS ${type}) AS ${name}`,
    )
    .join(', ');
}

/** The names of a table's stored columns, to copy rows of a stored file as they are. */
export function storedNamesSql(table: PreparedTable): string {
  return table.columns.map(([name, type]) => (type === 'HUGEINT' ? `${name}_high, ${name}_low` : name)).join(', ');
}

/** A table's columns as read back from its stored columns (of `alias` when given), each in the type the night's side made it in. */
export function loadedColumnsSql(table: PreparedTable, alias = ''): string {
  const column = (name: string) => (alias ? `${alias}.${name}` : name);
  return table.columns
    .map(([name, type]) =>
      type === 'HUGEINT'
        ? `(${column(`${name}_high`)}::HUGEINT * ${TWO_TO_64} + ${column(`${name}_low`)}::HUGEINT) AS ${name}`
        : `CAST(${column(name)} AS ${type}) AS ${name}`,
    )
    .join(', ');
}

/**
 * The folder's layout: 2 kept the points histories' days apart from their wallets' addresses; 3
 * writes those days in segments, keyed by wallet-season keys that last from night to night; 4
 * writes the balance rows in segments too, their accounts by lasting keys (addresses.parquet
 * gives each its key), and their raw balances as two 64-bit integers.
 */
export const PREPARED_FORMAT = 4;

const SegmentSchema = z
  .object({
    file: z.string().regex(SEGMENT_FILE),
    /** The days its rows may hold, as days since 1970-01-01, both included. */
    from: z.number().int(),
    to: z.number().int(),
  })
  .strict();

export type Segment = z.infer<typeof SegmentSchema>;

const ShardSchema = z.object({ index: z.number().int().min(1), count: z.number().int().min(1) }).strict();

const PreparedFactsSchema = z
  .object({
    format: z.literal(PREPARED_FORMAT),
    shard: ShardSchema,
    /** The build instant (`--now` of prepare) and the last closed day it gives. */
    now: z.iso.datetime(),
    lastClosedDay: DateStringSchema,
    /** The inputs' fingerprint (build/input/fingerprint.ts): with `now`, what names the night's version. */
    inputs: z.string().regex(/^[0-9a-f]{64}$/),
    dailyAsOf: DateStringSchema.nullable(),
    exampleWallet: LowerCaseAddressSchema.nullable(),
    leaderboards: z.array(LeaderboardSchema),
    seasonsIndex: SeasonsIndexSchema,
    /** Each season's participants among the shard's wallets on each of the night summary's days. */
    participantsByDay: z.record(z.string().regex(/^[1-9][0-9]*$/), z.array(z.number().int().min(0))),
    /** The segments of the balance rows and of the points histories' days, oldest days first. */
    segments: z.object({ balance_rows: z.array(SegmentSchema), points_history_days: z.array(SegmentSchema) }).strict(),
    /** Which kind of night prepared the folder (full, or incremental from a previous night), for the shard's report. */
    nightKind: NightKindSchema,
    /** The sha256 of every Parquet file of the folder, by name. */
    files: z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/)),
    /** The sha256 of this object's JSON without `seal`: an edit of the facts is refused like an edit of a file. */
    seal: z.string().regex(/^[0-9a-f]{64}$/),
  })
  .strict();

export type PreparedFacts = z.infer<typeof PreparedFactsSchema>;

export function sealOf(facts: Omit<PreparedFacts, 'seal'>): string {
  return crypto.createHash('sha256').update(JSON.stringify(facts)).digest('hex');
}

export async function writePreparedFacts(folder: string, facts: Omit<PreparedFacts, 'seal'>): Promise<void> {
  const sealed: PreparedFacts = PreparedFactsSchema.parse({ ...facts, seal: sealOf(facts) });
  await fsp.writeFile(path.join(folder, PREPARED_FACTS_FILE), `${JSON.stringify(sealed)}\n`);
}

export async function sha256OfFile(file: string): Promise<string> {
  const handle = await fsp.open(file, 'r');
  try {
    return await sha256OfHandle(handle);
  } finally {
    await handle.close();
  }
}

/** A prepared folder, its facts checked and every file opened and checked against them. */
export interface OpenedPreparedFolder {
  folder: string;
  facts: PreparedFacts;
  /** The paths DuckDB reads each table from (a segmented table's segments): the descriptors hashed (Linux), else the files. */
  readPaths: Map<string, string[]>;
  close(): Promise<void>;
}

/**
 * Opens `folder` (given as `--prepared`) and refuses, naming the file, anything `prepare` did not
 * write as it is: a missing or extra file, a file whose sha256 differs, facts that were edited.
 */
export async function openPreparedFolder(folder: string): Promise<OpenedPreparedFolder> {
  const stat = await fsp.stat(folder).catch(() => null);
  if (stat === null)
    throw new UserError(`--prepared ${folder} does not exist (give a shard-K-of-N folder that wallet-snapshot prepare wrote)`);
  if (!stat.isDirectory())
    throw new UserError(`--prepared ${folder} is not a folder (give a shard-K-of-N folder that wallet-snapshot prepare wrote)`);
  const factsFile = path.join(folder, PREPARED_FACTS_FILE);
  const text = await fsp.readFile(factsFile, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT')
      throw new UserError(
        `--prepared ${folder} holds no ${PREPARED_FACTS_FILE}: it is not a folder that wallet-snapshot prepare wrote (give NIGHT/shard-K-of-N)`,
      );
    throw new UserError(`${factsFile} cannot be read (${error.message})`, undefined, { cause: error });
  });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UserError(`${factsFile} was altered after prepare wrote it: it is not JSON`, undefined, { cause: error });
  }
  // A folder of another release is named as such (its layout differs), not taken for an edited one.
  const format = (parsed as { format?: unknown } | null)?.format;
  if (typeof format === 'number' && format !== PREPARED_FORMAT) {
    throw new UserError(
      `${factsFile} was written by another version of wallet-snapshot (prepared folder format ${format}; this version reads format ${PREPARED_FORMAT}): run prepare and the shards' builds with the same version`,
    );
  }
  const result = PreparedFactsSchema.safeParse(parsed);
  if (!result.success)
    throw new UserError(
      `${factsFile} was altered after prepare wrote it, or was written by another version of wallet-snapshot: ${result.error.issues[0]?.message ?? ''} at ${result.error.issues[0]?.path.join('.') ?? ''}`,
    );
  const { seal, ...rest } = result.data;
  if (sealOf(rest) !== seal)
    throw new UserError(`${factsFile} was altered after prepare wrote it (its content no longer matches its seal); run prepare again`);
  // The folder may have been copied under another name: the shard is the one its facts name.
  const facts = result.data;
  const expected = new Map<string, string>();
  for (const table of PREPARED_TABLES) {
    if (table.segmented) for (const segment of facts.segments[table.name as SegmentedTableName]) expected.set(segment.file, table.name);
    else expected.set(tableFile(table), table.name);
  }
  for (const name of await fsp.readdir(folder)) {
    if (name !== PREPARED_FACTS_FILE && !expected.has(name))
      throw new UserError(
        `${path.join(folder, name)} was not written by prepare: a prepared folder holds ${PREPARED_FACTS_FILE} and its Parquet files only`,
      );
  }
  const handles: fsp.FileHandle[] = [];
  const readPaths = new Map<string, string[]>(PREPARED_TABLES.map((table) => [table.name, []]));
  try {
    for (const [name, table] of expected) {
      const file = path.join(folder, name);
      const want = facts.files[name];
      if (want === undefined) throw new UserError(`${factsFile} names no sha256 for ${name}: run prepare again`);
      const handle = await fsp.open(file, 'r').catch((error: NodeJS.ErrnoException) => {
        throw new UserError(
          `${file} ${error.code === 'ENOENT' ? 'is missing' : `cannot be read (${error.message})`}: the prepared folder is incomplete; run prepare again`,
          undefined,
          { cause: error },
        );
      });
      handles.push(handle);
      const got = await sha256OfHandle(handle);
      if (got !== want)
        throw new UserError(`${file} was altered after prepare wrote it (sha256 ${got}, prepare wrote ${want}); run prepare again`);
      readPaths.get(table)!.push(FD_PATHS ? `/proc/self/fd/${handle.fd}` : file);
    }
  } catch (error) {
    await Promise.all(handles.map((handle) => handle.close()));
    throw error;
  }
  return { folder, facts, readPaths, close: async () => void (await Promise.all(handles.map((handle) => handle.close()))) };
}

async function sha256OfHandle(handle: fsp.FileHandle): Promise<string> {
  const hash = crypto.createHash('sha256');
  await hashThroughHandle(handle, hash);
  return hash.digest('hex');
}

/** The facts of a folder whose files were checked already (a previous night, checked whole by build/night-state.ts). */
export async function readPreparedFacts(folder: string): Promise<PreparedFacts> {
  return PreparedFactsSchema.parse(JSON.parse(await fsp.readFile(path.join(folder, PREPARED_FACTS_FILE), 'utf8')));
}
