/**
 * The snapshot build: its list of stages (build/stages/index.ts: read, check, load, compute,
 * write; from a prepared folder, compute and write), run in the lifecycle it shares with `prepare`
 * (lifecycle.ts), then the swap that puts the tree live.
 * The tree is written into a work folder beside `--out` and swapped in only when complete
 * (build/swap/swap.ts), under a lock on `--out`; signals stop it in any stage (interruption.ts).
 */
import path from 'node:path';
import type { BuildConfig } from './config.ts';
import type { Shard } from '../core/shard.ts';
import { countOf } from '../core/format.ts';
import {
  abandonWorkNow,
  claimOutput,
  completeTrees,
  goLive as swapIn,
  releaseOutput,
  removeOldTrees,
  type ClaimedOutput,
} from './swap/swap.ts';
import { closeInputs, openInputs, type OpenedInput } from './input/read.ts';
import { WriterPool } from './write/writer-pool.ts';
import { TreeWriter } from './write/tree-writer.ts';
import { writePackedDescriptor } from './write/packed-descriptor.ts';
import type { ThreadCache } from './write/thread-cache.ts';
import { NO_FAULTS, type InjectedFaults } from './faults.ts';
import { ManifestWriter, TreeManifest } from './write/manifest.ts';
import { fingerprintWhileWorking } from './input/fingerprint.ts';
import { describeUnpriced } from './compute/unpriced.ts';
import { seasonLines } from './compute/seasons.ts';
import { openPreparedFolder, type OpenedPreparedFolder, type PreparedFacts } from './prepared-folder.ts';
import { runStages, take, type StageContext, type StageValues, type TreeOutput } from './stages/stage.ts';
import { BUILD_STAGES, PREPARED_BUILD_STAGES } from './stages/index.ts';
import { runCommand } from './lifecycle.ts';
import type { NightSummary } from '../schemas/night-summary.ts';
import type { NightKind } from '../schemas/night-kind.ts';

export interface BuildSummary {
  /** The build instant (--now) and the last closed day it gives. */
  now: string;
  lastClosedDay: string;
  /** The build folder now live at --out, and the one it replaced (kept for a rollback). */
  build: string;
  previousBuild: string | null;
  wallets: number;
  files: number;
  bytes: number;
  seconds: number;
  dailyAsOf: string | null;
  seasons: { season: number; asOf: string | null; participants: number }[];
  /**
   * Every day's positions in the daily documents (a wallet, chain and token on a day) without a
   * price; the night summary's `positionsWithoutPrice` counts the last day's only.
   */
  dailyPositionsWithoutPrice: number;
  stageSeconds: Record<string, number>;
  /** Peak resident memory of the process (all its threads, DuckDB included). */
  peakRssBytes: number;
  balanceRows: number;
  warnings: string[];
  /** `build --prepared`: which kind of night prepared the folder (full, or incremental); null for `build --input`. */
  nightKind: NightKind | null;
  /** The night's summary written into the tree (docs/reliability.md#the-nights-summary): what publish compares with the live version. */
  night: NightSummary;
}

/** What a build is given besides its options: none in the CLI's own runs; tests pass what they need. */
export interface BuildRuntime {
  /** Writing threads kept between the builds of one process (build/write/thread-cache.ts). */
  threadCache?: ThreadCache;
  /** Faults to stop the build where a power cut or a hung mount would (build/faults.ts). */
  faults?: InjectedFaults;
}

export async function buildSnapshot(options: BuildConfig, runtime: BuildRuntime = {}): Promise<BuildSummary> {
  const faults = runtime.faults ?? NO_FAULTS;
  const started = performance.now();
  /** The options, and for a prepared shard its folder's build instant, last closed day and shard. */
  let config = options;
  let prepared: OpenedPreparedFolder | null = null;
  let inputs: OpenedInput[] = [];
  let inputsDigest!: Promise<string>;
  let claimed!: ClaimedOutput;
  let manifest: ManifestWriter | null = null;
  /** Discarded on failure; moved into place once the tree is published. */
  let unpublishedManifest: ManifestWriter | null = null;
  let tree!: TreeOutput;
  /** Started by the first stage that writes wallets' files. */
  let pool: WriterPool | null = null;
  /** A packed build's shard (a prepared shard's is its folder's). */
  let packed: { shard: Shard } | null = null;
  return runCommand({
    name: 'build',
    options,
    // Every refusal that needs no work comes first: the inputs (a FIFO, a missing file, an altered
    // prepared folder), then --out.
    async open(run) {
      if (options.preparedDir !== null) {
        const folder = await openPreparedFolder(options.preparedDir);
        prepared = folder;
        run.release(() => folder.close());
        config = withPreparedFacts(options, folder.facts);
        inputsDigest = Promise.resolve(folder.facts.inputs);
        return [];
      }
      run.release(() => closeInputs(inputs));
      inputs = await openInputs(options.inputDir, run.interruption.signal);
      inputsDigest = fingerprintWhileWorking(inputs);
      return inputs;
    },
    async claim(run) {
      claimed = await claimOutput(config.outDir, { input: config.preparedDir ?? config.inputDir, manifest: config.manifest });
      run.release(() => releaseOutput(claimed));
      run.onForcedExit(() => abandonWorkNow(claimed));
      run.interruption.throwIfInterrupted();
      const { work } = claimed;
      const pack = config.packed ? { shard: config.shard ?? { index: 1, count: 1 } } : null;
      packed = pack;
      // Opened first, so that a manifest path that cannot be written fails before any work.
      manifest = config.manifest ? await ManifestWriter.open(config.manifest) : null;
      unpublishedManifest = manifest;
      run.release(() => unpublishedManifest?.discard());
      run.onForcedExit(() => unpublishedManifest?.discard());
      run.release(() => pool?.stop());
      // One pool writes every per-wallet file (build/write/writer-pool.ts); a packed build's shared files and record too.
      const poolOf = () =>
        (pool ??= new WriterPool({
          root: work.tree,
          packed: pack,
          documentThreads: config.threads,
          onManifestLines: (lines) => record.append(lines),
          threadCache: runtime.threadCache,
        }));
      const record = new TreeManifest(
        work.tree,
        config.shard,
        manifest,
        pack ? { listFile: path.join(work.scratch, 'record.sha256'), deliver: (files) => poolOf().submitFiles(files) } : null,
      );
      tree = {
        record,
        pool: poolOf,
        sharedWriter: (onWrite) => (pack ? TreeWriter.intoPack(poolOf(), onWrite) : TreeWriter.intoFolder(work.tree, onWrite)),
      };
      return work.scratch;
    },
    // A build's list never needs a full night: it reads every row (no previous night to resume from).
    runStages(db, _fullNight, run) {
      const context: StageContext = { config, db, progress: run.progress, signal: run.interruption.signal, inputsDigest, faults };
      return prepared
        ? runStages(PREPARED_BUILD_STAGES, context, { preparedFolder: prepared, tree })
        : runStages(BUILD_STAGES, context, { inputs, tree, shards: config.shard?.count ?? 1, resume: null, forNextNight: false });
    },
    async finish(_values, run) {
      if (packed) {
        run.progress.start('finish the pack');
        await writePackedDescriptor(claimed.work.tree, await tree.pool().finishPack(), {
          shard: packed.shard,
          lastClosedDay: config.lastClosedDay,
          build: { now: config.nowIso, inputs: await inputsDigest },
        });
      }
      await manifest?.close();
      run.interruption.throwIfInterrupted();
    },
    async goLive(values, { progress, interruption }) {
      const { work } = claimed;
      progress.start('go live');
      const replaced = await swapIn(claimed, { durable: config.durable, signal: interruption.signal, faults });
      interruption.markPublished();
      manifest?.moveIntoPlace();
      unpublishedManifest = null;
      // Deleting an older tree (200,000 files at 100k wallets) takes as long as a good part of the
      // build, so it is a stage of its own rather than time hidden after the summary. The tree just
      // replaced stays, for a rollback by hand.
      const older = completeTrees(claimed.paths).filter((name) => name !== work.id && name !== replaced);
      if (older.length > 0) progress.start('remove older trees');
      await removeOldTrees(claimed, [work.id, replaced], interruption.signal);
      // The new tree is live; a signal since then still ends the build as interrupted (the message says so).
      interruption.throwIfInterrupted();
      progress.end();
      return summaryOf(values, { config, claimed, replaced, record: tree.record, progress, started, fromFolder: prepared !== null });
    },
  });
}

/** The closing summary of a build whose tree is live. */
function summaryOf(
  values: Partial<StageValues>,
  build: {
    config: BuildConfig;
    claimed: ClaimedOutput;
    replaced: string | null;
    record: TreeManifest;
    progress: { stageSeconds: Record<string, number> };
    started: number;
    fromFolder: boolean;
  },
): BuildSummary {
  const { config, claimed, record } = build;
  const made = take(
    values,
    ['wallets', 'points', 'pointsHistory', 'sharedFiles', 'leaderboards', 'dailyAsOf', 'balanceRows', 'night'],
    'the build',
  );
  const { wallets: written, points, pointsHistory, sharedFiles: shared, leaderboards } = made;
  const warnings: string[] = [...claimed.notes];
  if (written.positionsWithoutPrice > 0) {
    warnings.push(
      `${countOf(written.positionsWithoutPrice, 'daily position')} had no price on or before their day (usdPerToken 0): ${describeUnpriced(take(values, ['unpriced'], 'the build').unpriced)}`,
    );
  }
  return {
    now: config.nowIso,
    lastClosedDay: config.lastClosedDay,
    build: claimed.work.id,
    previousBuild: build.replaced,
    wallets: written.wallets,
    files: written.files + points.files + pointsHistory.files + shared.files + record.files,
    bytes: written.bytes + points.bytes + pointsHistory.bytes + shared.bytes + record.bytes,
    seconds: (performance.now() - build.started) / 1000,
    dailyAsOf: made.dailyAsOf,
    seasons: seasonLines(leaderboards),
    dailyPositionsWithoutPrice: written.positionsWithoutPrice,
    stageSeconds: build.progress.stageSeconds,
    // maxRSS is in kilobytes.
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
    balanceRows: made.balanceRows,
    warnings,
    night: made.night,
    nightKind: build.fromFolder ? take(values, ['nightKind'], 'the build').nightKind : null,
  };
}

/** A prepared shard's build instant, last closed day and shard are the folder's, whatever the options said. */
function withPreparedFacts(config: BuildConfig, facts: PreparedFacts): BuildConfig {
  return {
    ...config,
    nowIso: facts.now,
    nowSeconds: Math.floor(Date.parse(facts.now) / 1000),
    nowOption: facts.now,
    lastClosedDay: facts.lastClosedDay,
    shard: facts.shard,
  };
}
