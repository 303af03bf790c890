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
import type { PreviousNight } from '../night-state.ts';
import type { NightKind } from '../../schemas/night-kind.ts';

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
 * What the stages share besides DuckDB's tables: set by the stage that makes each value, read by
 * later ones (a value read before it is set is a bug: `need` says which).
 */
export interface StageValues {
  inputFiles?: InputFile[];
  dailyAsOf?: string | null;
  exampleWallet?: string | null;
  leaderboards?: Leaderboard[];
  seasonsIndex?: SeasonsIndex;
  prices?: PriceBook;
  balanceRows?: number;
  wallets?: WalletWriteResult;
  points?: PointsWriteResult;
  pointsHistory?: PointsWriteResult;
  unpriced?: UnpricedSeries[];
  sharedFiles?: TreeWriter;
  /** Shard index -> season -> participants on each of the night summary's days (the night's side). */
  participantsByDay?: Map<number, Map<number, number[]>>;
  nightFigures?: NightFigures;
  night?: NightSummary;
  /** Which kind of night `prepare` makes (full, or incremental from a previous night), and why. */
  nightKind?: NightKind;
  /** An incremental night: the first day computed again, and the previous night it reuses. */
  resume?: { from: number; previousNight: string; nextKey: number } | null;
}

export interface StageContext {
  readonly config: BuildConfig;
  readonly mode: BuildMode;
  readonly db: Database;
  readonly progress: Progress;
  readonly signal: AbortSignal;
  readonly inputs: OpenedInput[];
  /** The tree's folder, the writer pool and the tree's own manifest (absent in `prepare`). */
  readonly tree: { root: string; pool: () => WriterPool; record: TreeManifest } | null;
  readonly values: StageValues;
  /** The inputs' fingerprint (build/input/fingerprint.ts), hashed while the stages run. */
  readonly inputsDigest: Promise<string>;
}

export interface Stage {
  /** As progress and the closing summary show it. */
  name: string;
  side: Side;
  /** Tables and views read: each must exist when the stage starts. */
  reads: readonly string[];
  /** Tables and views made: each must exist when the stage ends (unless it also drops it). */
  writes: readonly string[];
  /** Tables of earlier stages this one drops once it has read them. */
  drops?: readonly string[];
  /** When the stage runs (default: always, on its side). */
  when?: (context: StageContext) => boolean;
  run(context: StageContext): Promise<void>;
}

/** A value a stage needs from an earlier one. */
export function need<K extends keyof StageValues>(context: StageContext, key: K): NonNullable<StageValues[K]> {
  const value = context.values[key];
  if (value === undefined) throw new Error(`no ${key} yet: a stage that makes it must run first`);
  return value as NonNullable<StageValues[K]>;
}

/** The tree a stage writes into: a build's, never prepare's. */
export function treeOf(context: StageContext): NonNullable<StageContext['tree']> {
  if (context.tree === null) throw new Error('this stage writes the tree, and prepare writes none');
  return context.tree;
}

/** Whether the night is split among shards (`--shard`, `prepare`, or a prepared folder). */
export function isSharded(context: StageContext): boolean {
  return context.config.shard !== null || context.mode.kind !== 'input';
}

/** Runs the stages of `side` that apply, in order. */
export async function runStages(stages: readonly Stage[], context: StageContext): Promise<void> {
  const profile = Boolean(process.env.WALLET_SNAPSHOT_PROFILE);
  // The catalog as the last stage left it, when it was read after that stage: nothing runs
  // between two stages, so the query that checks a stage's writes also checks the next one's reads
  // (a query costs about 1 ms, and a whole build runs 20 of the 24 stages).
  let catalog: Set<string> | null = null;
  for (const stage of stages) {
    if (stage.when && !stage.when(context)) continue;
    if (context.signal.aborted) throw context.signal.reason;
    if (stage.reads.length > 0) expectTables((catalog ??= await tablesOf(context.db)), stage, stage.reads, 'reads');
    context.progress.start(stage.name);
    const started = performance.now();
    catalog = null;
    await stage.run(context);
    if (profile) process.stderr.write(`[stage ${((performance.now() - started) / 1000).toFixed(2)}s] ${stage.name}\n`);
    const left = stage.writes.filter((table) => !stage.drops?.includes(table));
    if (left.length > 0) expectTables((catalog = await tablesOf(context.db)), stage, left, 'writes');
  }
  if (context.signal.aborted) throw context.signal.reason;
}

/** The tables and views in DuckDB's catalog. */
async function tablesOf(db: Database): Promise<Set<string>> {
  return new Set(
    (await db.rows<{ name: string }>('SELECT table_name AS name FROM duckdb_tables() UNION ALL SELECT view_name FROM duckdb_views() WHERE NOT internal')).map((row) => row.name),
  );
}

/** A stage's declaration checked against DuckDB's catalog: a missing table is a bug of the declaration. */
function expectTables(found: Set<string>, stage: Stage, tables: readonly string[], what: 'reads' | 'writes'): void {
  const missing = tables.filter((table) => !found.has(table));
  if (missing.length > 0) {
    throw new Error(`stage "${stage.name}" ${what} ${missing.join(', ')}, which ${what === 'reads' ? 'no earlier stage made' : 'it did not make'}`);
  }
}
