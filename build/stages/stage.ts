/**
 * A stage of the build, and the one runner every stage runs in. A stage is a verb-named module
 * that declares the DuckDB tables (and views) it reads and writes; the runner owns what every
 * stage needs alike: progress, interruption between stages, the seconds of each stage (and of
 * each statement with WALLET_SNAPSHOT_PROFILE=1), and a check that a stage found every table it
 * reads and left every table it writes, so that the declarations cannot drift from the SQL.
 *
 * The build's stages are one list (build/stages/index.ts) cut in two: the night's side reads and
 * checks the exports and computes what depends on every wallet; the shard's side computes and
 * writes the documents of its wallets. `prepare` runs the night's side once and writes one folder
 * per shard; `build --prepared` runs the shard's side from such a folder; `build --input` runs both.
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
import type { NightResume, PreviousNight } from '../night-state.ts';
import type { NightKind } from '../../schemas/night-kind.ts';
import type { InjectedFaults } from '../faults.ts';
import { StatementReads } from './statement-reads.ts';

export type Side = 'night' | 'shard';

/** What the build is asked to do, as the stages tell it apart. */
export type BuildMode =
  /** `build --input`: every wallet, or with `--shard` one shard's, both sides in one process. */
  | { kind: 'input' }
  /**
   * `prepare --shards N`: the night's side once, then one folder per shard; `previous` is the night
   * `--since` names, checked (build/night-state.ts), null without `--since` or with `--full`.
   */
  | { kind: 'prepare'; shards: number; night: string; previous: PreviousNight | null }
  /** `build --prepared FOLDER`: the shard's side from a folder `prepare` wrote, opened and checked. */
  | { kind: 'prepared'; folder: OpenedPreparedFolder };

/** The facts of the whole night that every shard writes alike (meta.json, the leaderboards). */
export interface NightFacts {
  dailyAsOf: string | null;
  exampleWallet: string | null;
  leaderboards: Leaderboard[];
  seasonsIndex: SeasonsIndex;
}

/**
 * What the stages hand each other besides DuckDB's tables: each value is made by the stage that
 * declares it in `makes` (returned from its `run`), and given to the stages that declare it in
 * `needs`. A value is there or not (a null value is a value: "no asOf" is not "not computed"); the
 * runner refuses a stage whose needs no earlier stage made.
 */
export interface StageValues {
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
  /** An incremental night: the first day computed again, and the previous night it reuses; null for a full night. */
  resume: NightResume | null;
}

export type ValueName = keyof StageValues;
/** The values a stage is given: each one made by an earlier stage. */
export type Given<N extends ValueName> = { readonly [K in N]: StageValues[K] };
/** The values a stage makes. */
export type Made<M extends ValueName> = { [K in M]: StageValues[K] };

export interface StageContext {
  readonly config: BuildConfig;
  readonly mode: BuildMode;
  readonly db: Database;
  readonly progress: Progress;
  readonly signal: AbortSignal;
  readonly inputs: OpenedInput[];
  /** The tree's writer pool, its writer of shared files and its own manifest (absent in `prepare`). */
  readonly tree: {
    pool: () => WriterPool;
    sharedWriter: (onWrite: (file: string, text: string) => void) => TreeWriter;
    record: TreeManifest;
  } | null;
  /** The values made so far (the runner's; a stage reads its `needs` as its parameter). */
  readonly values: Partial<StageValues>;
  /** The inputs' fingerprint (build/input/fingerprint.ts), hashed while the stages run. */
  readonly inputsDigest: Promise<string>;
  /** What a test injects (build/faults.ts); none in a real run. */
  readonly faults: InjectedFaults;
}

export interface Stage<N extends ValueName = ValueName, M extends ValueName = ValueName> {
  /** As progress and the closing summary show it. */
  name: string;
  side: Side;
  /** Tables and views read: each must exist when the stage starts, and no other table may be read. */
  reads: readonly string[];
  /** Tables and views made: each must exist when the stage ends (unless it also drops it). */
  writes: readonly string[];
  /** Tables of earlier stages this one drops once it has read them. */
  drops?: readonly string[];
  /** The values of earlier stages it is given. */
  needs: readonly N[];
  /** The values it makes, returned from `run`. */
  makes: readonly M[];
  /** When the stage runs (default: always, on its side): decided before its needs are taken. */
  when?: (context: StageContext) => boolean;
  run(context: StageContext, given: Given<N>): Promise<Made<M>>;
}

/** A stage, its needs and makes inferred from its lists. */
export function defineStage<const N extends ValueName = never, const M extends ValueName = never>(stage: Stage<N, M>): Stage<N, M> {
  return stage;
}

/** A stage of any needs and makes, as the list holds them. */
// biome-ignore lint/suspicious/noExplicitAny: the list holds stages of every needs and makes.
export type AnyStage = Stage<any, any>;

/** The values `keys` of `values`, each present (a null value is present), or an error naming the first missing. */
export function take<N extends ValueName>(values: Partial<StageValues>, keys: readonly N[], who: string): Given<N> {
  const given = {} as Record<N, unknown>;
  for (const key of keys) {
    if (!(key in values)) throw new Error(`${who} needs ${key}, which no earlier stage made`);
    given[key] = values[key];
  }
  return given as Given<N>;
}

/** The tree a stage writes into: a build's, never prepare's. */
export function treeOf(context: StageContext): NonNullable<StageContext['tree']> {
  if (context.tree === null) throw new Error('this stage writes the tree, and prepare writes none');
  return context.tree;
}

/** Runs the stages that apply, in order, each given its needs and its returned values kept. */
export async function runStages(stages: readonly AnyStage[], context: StageContext): Promise<void> {
  const profile = Boolean(process.env.WALLET_SNAPSHOT_PROFILE);
  // The catalog as the last stage left it, when it was read after that stage: nothing runs
  // between two stages, so the query that checks a stage's writes also checks the next one's reads
  // (a query costs about 1 ms, and a whole build runs 20 stages).
  let catalog: Set<string> | null = null;
  const reads = new StatementReads(await context.db.connect());
  try {
    for (const stage of stages) {
      if (stage.when && !stage.when(context)) continue;
      const given = take(context.values, stage.needs, `stage "${stage.name}"`);
      if (context.signal.aborted) throw context.signal.reason;
      catalog ??= await tablesOf(context.db);
      if (stage.reads.length > 0) expectTables(catalog, stage, stage.reads, 'reads');
      context.progress.start(stage.name);
      const started = performance.now();
      const made = await stage.run({ ...context, db: declaredReadsOnly(context.db, stage, catalog, reads) }, given);
      catalog = null;
      if (profile) process.stderr.write(`[stage ${((performance.now() - started) / 1000).toFixed(2)}s] ${stage.name}\n`);
      for (const key of stage.makes) {
        if (!(key in made)) throw new Error(`stage "${stage.name}" declares it makes ${key}, and did not`);
      }
      Object.assign(context.values, made);
      const left = stage.writes.filter((table) => !stage.drops?.includes(table));
      if (left.length > 0) expectTables((catalog = await tablesOf(context.db)), stage, left, 'writes');
    }
  } finally {
    reads.close();
  }
  if (context.signal.aborted) throw context.signal.reason;
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
