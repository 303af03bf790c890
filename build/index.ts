/**
 * The snapshot build: read -> check -> compute -> write -> publish, each stage in its own module.
 * The tree is written into a work folder beside `--out` and swapped in only when complete
 * (build/swap/swap.ts), under a lock on `--out`; signals stop it in any stage (interruption.ts).
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { BuildConfig } from './config.ts';
import { openDatabase, type Database } from './database.ts';
import { cannotWrite, outOfMemory } from './errors.ts';
import { TreeWriter } from './write/tree-writer.ts';
import { Progress } from '../core/progress.ts';
import { countOf } from '../core/format.ts';
import { abandonWorkNow, claimOutput, completeTrees, goLive, releaseOutput, removeOldTrees, type ClaimedOutput } from './swap/swap.ts';
import { closeInputs, inputReadError, openInputs, readInputs, type OpenedInput } from './input/read.ts';
import { Interruption } from './interruption.ts';
import { checkInputRelations, checkInputValues } from './input/check.ts';
import { loadInputs } from './input/load.ts';
import { computeSnapshots } from './compute/history.ts';
import { loadPriceBook } from './compute/daily.ts';
import { computeExportFacts } from './compute/export-facts.ts';
import { computeLeaderboards } from './compute/leaderboards.ts';
import { computeSeasonsIndex } from './compute/seasons.ts';
import { computePointsHistory } from './compute/points-history.ts';
import { writeWallets } from './write/wallets.ts';
import { writePoints } from './write/points.ts';
import { writePointsHistory } from './write/points-history.ts';
import { WriterPool } from './write/writer-pool.ts';
import { writeSharedFiles } from './write/shared.ts';
import { dayNumber } from './compute/days.ts';
import { ManifestWriter, TreeManifest } from './write/manifest.ts';
import { fingerprintInputs } from './input/fingerprint.ts';
import { findUnpricedPositions, describeUnpriced } from './compute/unpriced.ts';

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
  positionsWithoutPrice: number;
  stageSeconds: Record<string, number>;
  /** Peak resident memory of the process (all its threads, DuckDB included). */
  peakRssBytes: number;
  balanceRows: number;
  warnings: string[];
}

export async function buildSnapshot(config: BuildConfig): Promise<BuildSummary> {
  const started = performance.now();
  const progress = new Progress(config.progress);
  let claimed: ClaimedOutput | null = null;
  let inputs: OpenedInput[] = [];
  let db: Database | null = null;
  let pool: WriterPool | null = null;
  /** Discarded on failure; moved into place once the tree is published. */
  let unpublishedManifest: ManifestWriter | null = null;
  const interruption = new Interruption(() => {
    unpublishedManifest?.discard();
    if (claimed) abandonWorkNow(claimed);
  });
  interruption.onInterrupt(() => db?.connection.interrupt());
  try {
    // Every refusal that needs no work comes first: the inputs (a FIFO, a missing file), then --out.
    inputs = await openInputs(config.inputDir, interruption.signal);
    // Hashed while DuckDB works: the main thread is mostly waiting on it.
    const inputsDigest = fingerprintInputs(inputs);
    inputsDigest.catch(() => {});
    claimed = await claimOutput(config.outDir, { input: config.inputDir, manifest: config.manifest });
    const work = claimed.work;
    interruption.throwIfInterrupted();
    // Opened first, so that a manifest path that cannot be written fails before any work.
    const manifest = config.manifest ? await ManifestWriter.open(config.manifest) : null;
    unpublishedManifest = manifest;
    const record = new TreeManifest(work.tree, config.shard, manifest);
    db = await openDatabase({
      file: path.join(work.scratch, 'build.duckdb'),
      tempDir: path.join(work.scratch, 'spill'),
      threads: config.threads,
      memoryLimit: config.memoryLimit,
    });
    progress.start('read inputs');
    const inputFiles = await readInputs(db, inputs);
    interruption.throwIfInterrupted();
    progress.start('check values');
    await checkInputValues(db, inputFiles);
    interruption.throwIfInterrupted();
    progress.start('load inputs');
    await loadInputs(db, inputFiles, config.shard);
    interruption.throwIfInterrupted();
    progress.start('check relations');
    await checkInputRelations(db, inputFiles, config);
    interruption.throwIfInterrupted();
    const [{ rows: balanceRows } = { rows: 0 }] = await db.rows<{ rows: number }>('SELECT count(*)::DOUBLE AS rows FROM balance_rows');
    progress.start('compute snapshots');
    await computeSnapshots(db, config.nowSeconds);
    const { dailyAsOf, exampleWallet } = await computeExportFacts(db, config);
    const prices = await loadPriceBook(db, config.lastClosedDay);
    interruption.throwIfInterrupted();
    progress.start('compute leaderboards');
    const leaderboards = await computeLeaderboards(db, config.lastClosedDay);
    const seasonsIndex = await computeSeasonsIndex(db, leaderboards);
    interruption.throwIfInterrupted();
    progress.start('compute points history');
    await computePointsHistory(db);
    interruption.throwIfInterrupted();

    // One pool writes every per-wallet file (build/write/writer-pool.ts).
    pool = new WriterPool({ root: work.tree, documentThreads: config.threads, onManifestLines: (lines) => record.append(lines) });
    progress.start('write wallets');
    const written = await writeWallets(db, pool, {
      shard: config.shard,
      dailyAsOf,
      lastDay: dayNumber(config.lastClosedDay),
      prices,
      progress,
      signal: interruption.signal,
    });
    progress.start('write points');
    const points = await writePoints(db, pool, { shard: config.shard, leaderboards, progress, signal: interruption.signal });
    progress.start('write points history');
    const pointsHistory = await writePointsHistory(db, pool, { shard: config.shard, leaderboards, progress, signal: interruption.signal });
    // Where the positions without a price are, for the warning (a query only when there are some).
    const unpriced = written.positionsWithoutPrice > 0 ? await findUnpricedPositions(db, config.lastClosedDay, config.shard) : [];
    progress.start('write shared files');
    const writer = new TreeWriter(work.tree, (file, text) => record.add(file, text));
    await writeSharedFiles(writer, leaderboards, seasonsIndex, {
      format: 1,
      lastClosedDay: config.lastClosedDay,
      dailyAsOf,
      seasons: leaderboards.map((board) => board.season),
      exampleWallet,
    });
    await record.close({ now: config.nowIso, inputs: await inputsDigest });
    await manifest?.close();
    interruption.throwIfInterrupted();
    // The inputs are read no more: DuckDB's files go before the tree is flushed and swapped in.
    db.close();
    db = null;
    await fsp.rm(work.scratch, { recursive: true, force: true });

    progress.start('go live');
    const replaced = await goLive(claimed, { durable: config.durable, signal: interruption.signal });
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

    const warnings: string[] = [...claimed.notes];
    if (written.positionsWithoutPrice > 0) {
      warnings.push(`${countOf(written.positionsWithoutPrice, 'daily position')} had no price on or before their day (usdPerToken 0): ${describeUnpriced(unpriced)}`);
    }
    return {
      now: config.nowIso,
      lastClosedDay: config.lastClosedDay,
      build: work.id,
      previousBuild: replaced,
      wallets: written.wallets,
      files: written.files + points.files + pointsHistory.files + writer.files + record.files,
      bytes: written.bytes + points.bytes + pointsHistory.bytes + writer.bytes + record.bytes,
      seconds: (performance.now() - started) / 1000,
      dailyAsOf,
      seasons: leaderboards.map((board) => ({ season: board.season, asOf: board.asOf, participants: board.totalParticipants })),
      positionsWithoutPrice: written.positionsWithoutPrice,
      stageSeconds: progress.stageSeconds,
      // maxRSS is in kilobytes.
      peakRssBytes: process.resourceUsage().maxRSS * 1024,
      balanceRows,
      warnings,
    };
  } catch (error) {
    progress.end();
    // DuckDB reports an interrupted query as its own error; the user wants to hear why.
    if (interruption.signal.aborted) throw interruption.signal.reason;
    throw outOfMemory(error, config) ?? cannotWrite(error, config.outDir) ?? inputReadError(inputs, error) ?? error;
  } finally {
    await pool?.stop();
    db?.close();
    unpublishedManifest?.discard();
    if (claimed) await releaseOutput(claimed);
    await closeInputs(inputs);
    interruption.dispose();
  }
}
