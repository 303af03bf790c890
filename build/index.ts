/**
 * The snapshot build: the stages of build/stages/ (read, check, load, compute, write), then the
 * swap that puts the tree live.
 * The tree is written into a work folder beside `--out` and swapped in only when complete
 * (build/swap/swap.ts), under a lock on `--out`; signals stop it in any stage (interruption.ts).
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { BuildConfig } from './config.ts';
import { openScratchDatabase, type Database } from './database.ts';
import { failureOf } from './errors.ts';
import { Progress } from '../core/progress.ts';
import { countOf } from '../core/format.ts';
import { abandonWorkNow, claimOutput, completeTrees, goLive, releaseOutput, removeOldTrees, type ClaimedOutput } from './swap/swap.ts';
import { closeInputs, openInputs, type OpenedInput } from './input/read.ts';
import { Interruption } from './interruption.ts';
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
import { runStages, take, type StageContext } from './stages/stage.ts';
import { SHARD_STAGES, STAGES } from './stages/index.ts';
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
  let config = options;
  const progress = new Progress(config.progress);
  let claimed: ClaimedOutput | null = null;
  let inputs: OpenedInput[] = [];
  let prepared: OpenedPreparedFolder | null = null;
  let db: Database | null = null;
  /** Started by the first stage that writes wallets' files. */
  const writers: { pool: WriterPool | null } = { pool: null };
  /** Discarded on failure; moved into place once the tree is published. */
  let unpublishedManifest: ManifestWriter | null = null;
  const interruption = new Interruption(() => {
    unpublishedManifest?.discard();
    if (claimed) abandonWorkNow(claimed);
  });
  interruption.onInterrupt(() => db?.connection.interrupt());
  try {
    // Every refusal that needs no work comes first: the inputs (a FIFO, a missing file, an
    // altered prepared folder), then --out.
    if (config.preparedDir !== null) {
      prepared = await openPreparedFolder(config.preparedDir);
      config = withPreparedFacts(config, prepared.facts);
    } else {
      inputs = await openInputs(config.inputDir, interruption.signal);
    }
    const inputsDigest = prepared ? Promise.resolve(prepared.facts.inputs) : fingerprintWhileWorking(inputs);
    claimed = await claimOutput(config.outDir, { input: config.preparedDir ?? config.inputDir, manifest: config.manifest });
    const work = claimed.work;
    interruption.throwIfInterrupted();
    // Opened first, so that a manifest path that cannot be written fails before any work.
    const manifest = config.manifest ? await ManifestWriter.open(config.manifest) : null;
    unpublishedManifest = manifest;
    const packed = config.packed ? { shard: config.shard ?? { index: 1, count: 1 } } : null;
    // One pool writes every per-wallet file (build/write/writer-pool.ts); a packed build's shared files and record too.
    const pool = () =>
      (writers.pool ??= new WriterPool({
        root: work.tree,
        packed,
        documentThreads: config.threads,
        onManifestLines: (lines) => record.append(lines),
        threadCache: runtime.threadCache,
      }));
    const record = new TreeManifest(
      work.tree,
      config.shard,
      manifest,
      packed ? { listFile: path.join(work.scratch, 'record.sha256'), deliver: (files) => pool().submitFiles(files) } : null,
    );
    db = await openScratchDatabase(work.scratch, 'build', config);
    const context: StageContext = {
      config,
      mode: prepared ? { kind: 'prepared', folder: prepared } : { kind: 'input' },
      db,
      progress,
      signal: interruption.signal,
      inputs,
      tree: {
        record,
        pool,
        sharedWriter: (onWrite) => (packed ? TreeWriter.intoPack(pool(), onWrite) : TreeWriter.intoFolder(work.tree, onWrite)),
      },
      // A build from the exports computes the whole history: no previous night to resume from
      // (prepare's find-changed-days decides that for a night).
      values: prepared ? {} : { resume: null },
      inputsDigest,
      faults,
    };
    await runStages(prepared ? SHARD_STAGES : STAGES, context);
    if (packed) {
      progress.start('finish the pack');
      await writePackedDescriptor(work.tree, await pool().finishPack(), {
        shard: packed.shard,
        lastClosedDay: config.lastClosedDay,
        build: { now: config.nowIso, inputs: await inputsDigest },
      });
    }
    await manifest?.close();
    interruption.throwIfInterrupted();
    // The inputs are read no more: DuckDB's files go before the tree is flushed and swapped in.
    db.close();
    db = null;
    await fsp.rm(work.scratch, { recursive: true, force: true });

    progress.start('go live');
    const replaced = await goLive(claimed, { durable: config.durable, signal: interruption.signal, faults });
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

    const { values } = context;
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
      build: work.id,
      previousBuild: replaced,
      wallets: written.wallets,
      files: written.files + points.files + pointsHistory.files + shared.files + record.files,
      bytes: written.bytes + points.bytes + pointsHistory.bytes + shared.bytes + record.bytes,
      seconds: (performance.now() - started) / 1000,
      dailyAsOf: made.dailyAsOf,
      seasons: seasonLines(leaderboards),
      dailyPositionsWithoutPrice: written.positionsWithoutPrice,
      stageSeconds: progress.stageSeconds,
      // maxRSS is in kilobytes.
      peakRssBytes: process.resourceUsage().maxRSS * 1024,
      balanceRows: made.balanceRows,
      warnings,
      night: made.night,
      nightKind: prepared ? take(values, ['nightKind'], 'the build').nightKind : null,
    };
  } catch (error) {
    progress.end();
    throw failureOf(error, { signal: interruption.signal, settings: config, outDir: config.outDir, inputs });
  } finally {
    await writers.pool?.stop();
    db?.close();
    unpublishedManifest?.discard();
    if (claimed) await releaseOutput(claimed);
    await closeInputs(inputs);
    await prepared?.close();
    interruption.dispose();
  }
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
