/**
 * `wallet-snapshot verify`: every document of a tree against its zod schema, plus the invariants
 * that span files: one `asOf` in every daily document, lower-case address folders holding exactly
 * their two documents (and a participant's points file), each wallet's daily rows read off its
 * history (the daily portfolio's rule), one leaderboard per known season and no other, ordered
 * rows; the points files and the seasons index against the leaderboards (verify-points.ts).
 *
 * The main thread checks the records, the shared documents and the rest of the tree; the wallet
 * folders, nearly all of the work, go in batches to one thread per core (verify-pool.ts,
 * verify-wallet.ts), which send back their failures and what the rules across wallets need.
 */
import os from 'node:os';
import type { z } from 'zod';
import { DailyPortfolioSchema } from '../schemas/daily-portfolio.ts';
import { PortfolioHistorySchema } from '../schemas/portfolio-history.ts';
import { PointsHistorySchema } from '../schemas/points-history.ts';
import { LEADERBOARD_SIZE, LeaderboardSchema, type Leaderboard } from '../schemas/leaderboard.ts';
import type { Shard } from '../core/shard.ts';
import { Progress } from '../core/progress.ts';
import { competitionRanks } from '../core/competition-rank.ts';
import { PointsVerifier } from './verify-points.ts';
import { SnapshotMetaSchema, type SnapshotMeta } from '../schemas/meta.ts';
import { ManifestCheck } from './verify-manifest.ts';
import { MANIFEST_DIR } from './manifest-files.ts';
import { UserError } from '../core/errors.ts';
import { checkNightSummaries } from './verify-night-summary.ts';
import { readDocument, type Fail } from './verify-document.ts';
import { checkWalletBatches } from './verify-pool.ts';
import type { TreeSource, WalletBatch, WalletBatchResult } from './verify-wallet.ts';
import { folderFiles, type TreeFiles } from './tree-files.ts';
import { ENDPOINTS } from '../schemas/endpoints.ts';
import { isPackedFolder } from './packed-folder.ts';
import { isPublished } from './bucket.ts';
import { openPackedFiles, type OpenedForVerify } from './packed-files.ts';
import {
  ADDRESS_DIR,
  LEADERBOARD_DIR,
  META_FILE,
  NO_HISTORY_DAILY_FILE,
  NO_HISTORY_POINTS_HISTORY_FILE,
  NO_HISTORY_PORTFOLIO_FILE,
  seasonFile,
} from './layout.ts';

const MAX_FAILURES = 20;
/** Below this many wallet folders, threads cost more to start (about 0.3 s each) than they save. */
const THREADS_FROM_WALLETS = 1_000;
const MAX_BATCH = 200;

export interface VerifyResult {
  files: number;
  failures: string[];
  truncated: boolean;
  /** What the build's records prove: "the whole tree", "all 4 shards", "shards 1, 3 of 4". */
  coverage: string;
  wallets: number;
  /** Seconds per stage (Progress). */
  stageSeconds: Record<string, number>;
}

export interface VerifyOptions {
  /** The tree is that one shard of a sharded build, not the whole tree. */
  shard?: Shard | null;
  /** Threads checking the wallet folders; 0 checks them in the main thread. Default: one per core, for a tree of 1,000 wallets or more. */
  threads?: number;
  /** Wallet folders per batch handed to a thread (default: up to 200, at least 8 batches per thread). */
  batchSize?: number;
  progress?: Progress;
}

export async function verifyTree(dir: string, options: VerifyOptions = {}): Promise<VerifyResult> {
  const progress = options.progress ?? new Progress('quiet');
  const found: Found = { failures: [], truncated: false };
  const fail = (message: string) => {
    if (found.failures.includes(message)) return;
    if (found.failures.length < MAX_FAILURES) found.failures.push(message);
    else found.truncated = true;
  };
  // A packed folder (build --packed) is read through its index, its archives checked alongside the wallets.
  let packed: OpenedForVerify | null = null;
  if (isPackedFolder(dir)) {
    try {
      packed = openPackedFiles(dir, dir, fail);
    } catch (error) {
      // A descriptor, index or manifest that is not the one recorded: nothing can be read through it.
      if (!(error instanceof UserError)) throw error;
      fail(error.message);
      return {
        files: 0,
        failures: found.failures,
        truncated: found.truncated,
        coverage: 'no record',
        wallets: 0,
        stageSeconds: progress.stageSeconds,
      };
    }
  }
  // The archives' failures are listed first (the archives were read before anything else until they were read alongside).
  const archiveFailures: string[] = [];
  const archives =
    packed?.checkArchives((message) => {
      // One more than can be listed says there were more.
      if (archiveFailures.length <= MAX_FAILURES) archiveFailures.push(message);
    }) ?? Promise.resolve();
  // Awaited below, after the files: a failure meanwhile is not an unhandled one.
  archives.catch(() => {});
  try {
    const result = await verifyFiles(dir, packed?.files ?? folderFiles(dir), packed?.walletMembers ?? null, options, progress, found, fail);
    await archives;
    if (archiveFailures.length === 0) return result;
    const failures = [...new Set([...archiveFailures, ...result.failures])];
    return { ...result, failures: failures.slice(0, MAX_FAILURES), truncated: result.truncated || failures.length > MAX_FAILURES };
  } finally {
    await archives.catch(() => {});
    packed?.files.close();
  }
}

/** The failures found so far, and whether some were left out. */
interface Found {
  failures: string[];
  truncated: boolean;
}

/** `walletMembers`: a packed folder's members under each wallet folder; null for a folder of files. */
async function verifyFiles(
  dir: string,
  tree: TreeFiles,
  walletMembers: Map<string, string[]> | null,
  options: VerifyOptions,
  progress: Progress,
  outcome: Found,
  fail: (message: string) => void,
): Promise<VerifyResult> {
  let files = 0;
  let wallets = 0;
  progress.start('check records');
  // Every file against the build's own record of what it wrote (hashes, nothing extra, nothing missing).
  const manifest = await ManifestCheck.load(tree, fail, walletMembers ? isPublished : undefined);
  // A --shard the records contradict would make every wallet a failure: a bad option, refused
  // once, saying which part the tree is.
  const mismatch = options.shard ? shardMismatch(dir, options.shard, manifest.recordedPart) : null;
  if (mismatch !== null) {
    progress.end();
    throw new UserError(mismatch);
  }
  progress.start('check shared files');
  const source: TreeSource = walletMembers ? { kind: 'packed', dir } : { kind: 'folder', root: dir };
  const read = <T>(file: string, schema: z.ZodType<T>): T | null => {
    const document = readDocument(tree, file, schema, fail, (name, bytes) => manifest.saw(name, bytes));
    if (document) files++;
    return document?.value ?? null;
  };
  const finish = async () => {
    progress.start('check the rest of the tree');
    const { coverage } = await manifest.finish();
    progress.end();
    return { files, failures: outcome.failures, truncated: outcome.truncated, coverage, wallets, stageSeconds: progress.stageSeconds };
  };

  const meta: SnapshotMeta | null = read(META_FILE, SnapshotMetaSchema);
  if (!meta) return finish();

  const noHistory = read(NO_HISTORY_PORTFOLIO_FILE, PortfolioHistorySchema);
  if (noHistory && Object.keys(noHistory).length > 0) fail(`${NO_HISTORY_PORTFOLIO_FILE}: must be {}`);
  const noPointsHistory = read(NO_HISTORY_POINTS_HISTORY_FILE, PointsHistorySchema);
  if (noPointsHistory && noPointsHistory.seasons.length > 0) fail(`${NO_HISTORY_POINTS_HISTORY_FILE}: must be {"seasons":[]}`);
  const noDaily = read(NO_HISTORY_DAILY_FILE, DailyPortfolioSchema);
  if (noDaily && (noDaily.asOf !== meta.dailyAsOf || noDaily.days.length > 0)) {
    fail(`${NO_HISTORY_DAILY_FILE}: must be {"asOf": ${JSON.stringify(meta.dailyAsOf)}, "days": []}`);
  }

  const boards: Leaderboard[] = [];
  for (const season of meta.seasons) {
    const file = seasonFile(ENDPOINTS.leaderboard, season);
    const board = read(file, LeaderboardSchema);
    if (board) checkLeaderboard(file, board, season, fail);
    if (board?.season === season) boards.push(board);
  }
  // The night's summaries (docs/reliability.md#the-nights-summary) against the files they summarise.
  checkNightSummaries(tree, read, meta, boards, fail);
  // A tree of some shards is told apart by `--shard K/N` or by the build's records in it.
  const part = options.shard ? { count: options.shard.count, indexes: [options.shard.index] } : manifest.part;
  // Only a tree without records could be a shard verified without --shard: only then is that a hint.
  const points = new PointsVerifier(boards, part, fail, manifest.recordedPart === null);
  await points.checkSharedFiles(async (file, schema) => read(file, schema), meta.seasons);
  for (const { name } of tree.list(LEADERBOARD_DIR) ?? []) {
    const season = /^s([1-9][0-9]*)\.json$/.exec(name);
    if (!season || !meta.seasons.includes(Number(season[1]))) fail(`${LEADERBOARD_DIR}/${name}: not the file of a known season`);
  }

  const entries = tree.list(ADDRESS_DIR);
  if (entries) {
    progress.start('check wallets');
    const lines = manifest.delegateWallets(entries);
    const threads = options.threads ?? (entries.length >= THREADS_FROM_WALLETS ? os.availableParallelism() : 0);
    const size = options.batchSize ?? Math.max(1, Math.min(MAX_BATCH, Math.ceil(entries.length / (Math.max(1, threads) * 8))));
    const batches: WalletBatch[] = [];
    for (let start = 0, id = 0; start < entries.length; start += size, id++) {
      const names = entries.slice(start, start + size).map((entry) => entry.name);
      const members = walletMembers ? names.map((name) => walletMembers.get(name) ?? []) : null;
      batches.push({ id, names, lines: lines.slice(start, start + size), members });
    }
    // Failures are reported in the folders' order, whichever thread finished first.
    const done = new Map<number, WalletBatchResult>();
    let nextInOrder = 0;
    let found = 0;
    await checkWalletBatches({ source, dailyAsOf: meta.dailyAsOf, boards, part }, batches, threads, MAX_FAILURES, (result) => {
      wallets += result.wallets;
      files += result.files;
      found += result.failures.length;
      points.addTallies(result.tallies);
      done.set(result.id, result);
      for (let next = done.get(nextInOrder); next; next = done.get(++nextInOrder)) {
        done.delete(nextInOrder);
        for (const message of next.failures) fail(message);
      }
      progress.tick(wallets, entries.length, 'wallets');
      return found <= MAX_FAILURES;
    });
    // Batches after one that was never handed out (enough failures already).
    for (const result of [...done.values()].sort((a, b) => a.id - b.id)) for (const message of result.failures) fail(message);
    if (wallets < entries.length) outcome.truncated = true;
  }
  points.finish();
  return finish();
}

function checkLeaderboard(file: string, board: z.infer<typeof LeaderboardSchema>, season: number, fail: Fail): void {
  if (board.season !== season) fail(`${file}: season is ${board.season}`);
  const listed = Math.min(LEADERBOARD_SIZE, board.totalParticipants);
  if (board.entries.length !== listed)
    fail(`${file}: ${board.entries.length} entries for ${board.totalParticipants} participants (the first ${listed} are listed)`);
  board.multipliers.forEach((row, i) => {
    const previous = board.multipliers[i - 1];
    if (previous && (previous.position > row.position || (previous.position === row.position && previous.firstDay > row.firstDay))) {
      fail(`${file}: multipliers are not ordered by position then firstDay`);
    }
  });
  // The entries are the first of every participant in order: their ranks among themselves are their ranks among all.
  const expectedRanks = competitionRanks(board.entries.map((entry) => entry.totalPoints));
  board.entries.forEach((entry, i) => {
    const previous = board.entries[i - 1];
    if (entry.rank !== expectedRanks[i]) fail(`${file}: entry ${i + 1} has rank ${entry.rank}, expected ${expectedRanks[i]}`);
    if (
      previous &&
      (previous.totalPoints < entry.totalPoints || (previous.totalPoints === entry.totalPoints && previous.user >= entry.user))
    ) {
      fail(`${file}: entries are not ordered by totalPoints then user`);
    }
  });
  if (board.asOf === null && board.entries.length > 0) fail(`${file}: entries without an asOf`);
}

/**
 * `--shard K/N` against what the build recorded in the tree: null when they agree or when there
 * is no record to compare with, else the one failure that says which part the tree is.
 */
function shardMismatch(dir: string, shard: Shard, recorded: { count: number; indexes: number[] } | 'whole' | null): string | null {
  if (recorded === null) return null;
  const given = `--shard ${shard.index}/${shard.count} does not match ${dir}`;
  const source = `its records in ${MANIFEST_DIR}/ say so`;
  if (recorded === 'whole') return `${given}: it is the whole tree (${source}); verify it without --shard`;
  if (recorded.indexes.length > 1)
    return `${given}: it holds shards ${recorded.indexes.join(', ')} of ${recorded.count} (${source}); verify it without --shard`;
  const [index] = recorded.indexes;
  if (index === shard.index && recorded.count === shard.count) return null;
  return `${given}: it is shard ${index} of ${recorded.count} (${source}); verify it with --shard ${index}/${recorded.count}`;
}
