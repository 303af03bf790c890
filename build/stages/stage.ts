/**
 * A stage of the build, and the one runner every stage runs in. A stage is a verb-named module
 * that declares the DuckDB tables (and views) it reads and writes, and the values it needs and
 * makes; the runner owns what every stage needs alike: progress, interruption between stages, the
 * seconds of each stage (and of each statement with WALLET_SNAPSHOT_PROFILE=1), the values (each
 * stage is handed exactly its needs, and no stage sees another's), and a check that a stage found
 * every table it reads and left every table it writes, so that the declarations cannot drift
 * from the SQL.
 *
 * A stage never asks which command runs it: each command has its own list (build/stages/index.ts),
 * and what differs between commands (the shards, where the night goes, whether the export is read
 * whole or from a day) reaches a stage as a value the command gives or an earlier stage makes.
 */
import type { BuildConfig } from '../config.ts';
import type { Database } from '../database.ts';
import type { Progress } from '../../core/progress.ts';
import type { OpenedInput, InputFile } from '../input/read.ts';
import type { Leaderboard } from '../../schemas/leaderboard.ts';
import type { SeasonsIndex } from '../../schemas/seasons.ts';
import type { PriceBook } from '../compute/wallet-series.ts';
import type { WriterPool } from '../write/writer-pool.ts';
import type { WalletWriteResult } from '../write/wallets.ts';
import type { PointsWriteResult } from '../write/points-stage.ts';
import type { TreeManifest } from '../write/manifest.ts';
import type { TreeWriter } from '../write/tree-writer.ts';
import type { UnpricedSeries } from '../compute/unpriced.ts';
import type { OpenedPreparedFolder } from '../prepared-folder.ts';
import type { NightFigures } from '../compute/night-summary.ts';
import type { NightSummary } from '../../schemas/night-summary.ts';
import type { NightRecordFacts, NightResume, PreviousNight } from '../night-state.ts';
import type { NightKind } from '../../schemas/night-kind.ts';
import type { InjectedFaults } from '../faults.ts';
import { StatementReads } from './statement-reads.ts';

type Side = 'night' | 'shard';

/** The tree a build's shard side writes: its writer pool, its writer of shared files, its own record of every file. */
export interface TreeOutput {
  pool: () => WriterPool;
  sharedWriter: (onWrite: (file: string, text: string) => void) => TreeWriter;
  record: TreeManifest;
}

/**
 * What the stages are handed besides DuckDB's tables. A value is given by the command that runs
 * the list (declared in the list's `gives`), or made by the one stage that declares it in `makes`
 * (returned from its `run`); a stage is handed those it declares in `needs`, and nothing else. A
 * value is there or not (a null value is a value: "no asOf" is not "not computed"); the runner
 * refuses a stage whose needs are not there, and a value made twice.
 */
export interface StageValues {
  /** The exports, opened (`build --input`, `prepare`). */
  inputs: OpenedInput[];
  /** The shard's folder `prepare` wrote, opened and checked (`build --prepared`). */
  preparedFolder: OpenedPreparedFolder;
  /** The tree the shard's side writes (`build`). */
  tree: TreeOutput;
  /** The shards the night is cut into: prepare's `--shards`, a build's `--shard K/N`'s N, else 1. */
  shards: number;
  /** Where `prepare` writes the night's folders and files (its work folder, moved into place when done). */
  nightFolder: string;
  /** `--since PREV`, checked (build/night-state.ts): a night to reuse, or why the night is full; null without `--since` or with `--full`. */
  previous: PreviousNight | null;
  /**
   * Whether the night is kept for a next one (`prepare`): its checks and load then digest every row
   * per day (`input_days`, which the next night compares, and which check relations reads the
   * events' extent from) and each balance address's first second; a build keeps nothing.
   */
  forNextNight: boolean;
  inputFiles: InputFile[];
  dailyAsOf: string | null;
  exampleWallet: string | null;
  leaderboards: Leaderboard[];
  seasonsIndex: SeasonsIndex;
  prices: PriceBook;
  balanceRows: number;
  wallets: WalletWriteResult;
  points: PointsWriteResult;
  pointsHistory: PointsWriteResult;
  unpriced: UnpricedSeries[];
  sharedFiles: TreeWriter;
  /** Shard index -> season -> participants on each of the night summary's days (the night's side). */
  participantsByDay: Map<number, Map<number, number[]>>;
  nightFigures: NightFigures;
  night: NightSummary;
  /** Which kind of night `prepare` makes (full, or incremental from a previous night), and why. */
  nightKind: NightKind;
  /** An incremental night: the first day computed again, and the previous night it reuses; null for a full night and a build. */
  resume: NightResume | null;
  /** What the night's record (`night.json`) says of the night besides its files: written once the night is in place (prepare). */
  nightRecord: NightRecordFacts;
}

export type ValueName = keyof StageValues;
/** The values a stage is given: each one made by an earlier stage or given by the command. */
export type Given<N extends ValueName> = { readonly [K in N]: StageValues[K] };
/** The values a stage makes. */
export type Made<M extends ValueName> = { [K in M]: StageValues[K] };

/** What every stage has alike, whichever command runs it. */
export interface StageContext {
  readonly config: BuildConfig;
  readonly db: Database;
  readonly progress: Progress;
  readonly signal: AbortSignal;
  /** The inputs' fingerprint (build/input/fingerprint.ts), hashed while the stages run. */
  readonly inputsDigest: Promise<string>;
  /** What a test injects (build/faults.ts); none in a real run. */
  readonly faults: InjectedFaults;
}

/**
 * What a stage of an incremental night returns, instead of its values, when the night cannot go on
 * from its first recomputed day (rare: docs/incremental-nights.md), and why, in the summary's
 * words: the list ends there, and `prepare` runs its list again as a full night that says why.
 */
export interface FullNightNeeded {
  readonly fullNightNeeded: string;
}

export const fullNightNeeded = (why: string): FullNightNeeded => ({ fullNightNeeded: why });

/**
 * A stage: `N` the values it needs, `M` those it makes, `R` what its `run` returns (its values, or
 * for a stage of an incremental night, its values or that the night needs to be full).
 */
export interface Stage<N extends ValueName = ValueName, M extends ValueName = ValueName, R extends Made<M> | FullNightNeeded = Made<M>> {
  /** As progress and the closing summary show it. */
  name: string;
  side: Side;
  /** Tables and views read: each must exist when the stage starts, and no other table may be read. */
  reads: readonly string[];
  /** Tables and views made: each must exist when the stage ends (unless it also drops it). */
  writes: readonly string[];
  /** Tables of earlier stages this one drops once it has read them. */
  drops?: readonly string[];
  /** The values it is handed: made by earlier stages or given by the command. */
  needs: readonly N[];
  /** The values it makes, returned from `run`. */
  makes: readonly M[];
  run(context: StageContext, given: Given<N>): Promise<R>;
}

/** A stage, its needs and makes inferred from its lists, and what it returns from its `run`. */
export function defineStage<
  const N extends ValueName = never,
  const M extends ValueName = never,
  R extends Made<M> | FullNightNeeded = Made<M>,
>(stage: Stage<N, M, R>): Stage<N, M, R> {
  return stage;
}

/** A stage of any needs and makes, as the lists hold them. */
// biome-ignore lint/suspicious/noExplicitAny: the lists hold stages of every needs and makes.
export type AnyStage = Stage<any, any, any>;

/** A command's stages, in order, and the values the command gives them (every other need is made by an earlier stage). */
export interface StageList<G extends ValueName = ValueName> {
  stages: readonly AnyStage[];
  gives: readonly G[];
}

/** A list, the values its command gives inferred. */
export function defineList<const G extends ValueName>(list: StageList<G>): StageList<G> {
  return list;
}

/** How a list ended: every stage ran (and these are the values made and given), or an incremental night needs to be full. */
export type ListOutcome = { readonly values: Partial<StageValues> } | FullNightNeeded;

/** The values `keys` of `values`, each present (a null value is present), or an error naming the first missing. */
export function take<N extends ValueName>(values: Partial<StageValues>, keys: readonly N[], who: string): Given<N> {
  const given = {} as Record<N, unknown>;
  for (const key of keys) {
    if (!(key in values)) throw new Error(`${who} needs ${key}, which no earlier stage made`);
    given[key] = values[key];
  }
  return given as Given<N>;
}

/**
 * Runs the list's stages in order, each handed its needs (from `given`, what the command gives,
 * and the values of the stages before it) and its returned values kept; ends early when a stage
 * finds that its night needs to be full.
 */
export async function runStages<G extends ValueName>(list: StageList<G>, context: StageContext, given: Given<G>): Promise<ListOutcome> {
  const values: Partial<StageValues> = {};
  for (const key of list.gives) values[key] = given[key] as never;
  const profile = Boolean(process.env.WALLET_SNAPSHOT_PROFILE);
  // The catalog as the last stage left it, when it was read after that stage: nothing runs
  // between two stages, so the query that checks a stage's writes also checks the next one's reads
  // (a query costs about 1 ms, and a whole build runs 20 stages).
  let catalog: Set<string> | null = null;
  const reads = new StatementReads(await context.db.connect());
  try {
    for (const stage of list.stages) {
      const needs = take(values, stage.needs, `stage "${stage.name}"`);
      if (context.signal.aborted) throw context.signal.reason;
      catalog ??= await tablesOf(context.db);
      if (stage.reads.length > 0) expectTables(catalog, stage, stage.reads, 'reads');
      context.progress.start(stage.name);
      const started = performance.now();
      const made: Made<ValueName> | FullNightNeeded = await stage.run(
        { ...context, db: declaredReadsOnly(context.db, stage, catalog, reads) },
        needs,
      );
      catalog = null;
      if (profile) process.stderr.write(`[stage ${((performance.now() - started) / 1000).toFixed(2)}s] ${stage.name}\n`);
      if ('fullNightNeeded' in made) return made;
      for (const key of stage.makes) {
        if (!(key in made)) throw new Error(`stage "${stage.name}" declares it makes ${key}, and did not`);
        if (key in values) throw new Error(`stage "${stage.name}" makes ${key}, which is made already`);
      }
      Object.assign(values, made);
      const left = stage.writes.filter((table) => !stage.drops?.includes(table));
      if (left.length > 0) expectTables((catalog = await tablesOf(context.db)), stage, left, 'writes');
    }
  } finally {
    reads.close();
  }
  if (context.signal.aborted) throw context.signal.reason;
  return { values };
}

/** The methods of a database or a connection that run SQL given as their first argument. */
const RUNS_SQL = /^(?:run|rows|stream|start|prepare$|extractStatements$)/;

/**
 * `db` for one stage: every statement it runs (through the database or a connection of it) that
 * reads a table of the catalog the stage did not declare (in `reads`, `writes` or `drops`) is
 * refused before it runs, so that the declarations cannot drift from the SQL. The tables a
 * statement reads are those DuckDB's parser finds in it (statement-reads.ts).
 */
function declaredReadsOnly(db: Database, stage: AnyStage, catalog: Set<string>, reads: StatementReads): Database {
  const declared = new Set([...stage.reads, ...stage.writes, ...(stage.drops ?? [])]);
  const check = async (sql: string) => {
    let tables: string[];
    try {
      tables = await reads.tablesOf(sql);
    } catch (error) {
      throw new Error(`stage "${stage.name}" runs ${(error as Error).message}`);
    }
    for (const table of tables) {
      if (catalog.has(table) && !declared.has(table))
        throw new Error(`stage "${stage.name}" reads ${table}, which it does not declare in its reads`);
    }
  };
  const guarded = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(object, property, receiver) {
        const value = Reflect.get(object, property, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (typeof property === 'string' && RUNS_SQL.test(property) && typeof args[0] === 'string') {
            return check(args[0]).then(() => value.apply(object, args));
          }
          const result = value.apply(object, args);
          // A second connection of the stage is guarded too.
          return property === 'connect' && result instanceof Promise ? result.then((connection: object) => guarded(connection)) : result;
        };
      },
    });
  return { ...guarded(db), connection: guarded(db.connection) } as Database;
}

/** The tables and views in DuckDB's catalog. */
async function tablesOf(db: Database): Promise<Set<string>> {
  return new Set(
    (
      await db.rows<{ name: string }>(
        'SELECT table_name AS name FROM duckdb_tables() UNION ALL SELECT view_name FROM duckdb_views() WHERE NOT internal',
      )
    ).map((row) => row.name),
  );
}

/** A stage's declaration checked against DuckDB's catalog: a missing table is a bug of the declaration. */
function expectTables(found: Set<string>, stage: AnyStage, tables: readonly string[], what: 'reads' | 'writes'): void {
  const missing = tables.filter((table) => !found.has(table));
  if (missing.length > 0) {
    throw new Error(
      `stage "${stage.name}" ${what} ${missing.join(', ')}, which ${what === 'reads' ? 'no earlier stage made' : 'it did not make'}`,
    );
  }
}
