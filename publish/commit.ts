/**
 * `publish --commit`: a sharded version goes live once every shard is staged. Refused, with the
 * live version untouched, while a shard is missing or the shards disagree: on the shard count, on
 * the build they come from, on the bytes of the files every shard writes alike, or on a wallet's
 * shard. The shards' manifests are read one at a time; only the shared files' lines are kept.
 */
import crypto from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import { UserError } from '../core/errors.ts';
import { shardOf } from '../core/shard.ts';
import { ADDRESS_DIR } from '../tree/layout.ts';
import { readPointer, writePointer } from './live-pointer.ts';
import { describe, type Location } from './location.ts';
import { isSharedFile } from './read-tree.ts';
import { STORAGE_FORMAT } from '../tree/bucket.ts';
import { MANIFEST_LINE_PATH_AT } from '../tree/manifest-line.ts';
import type { LivePointer } from '../tree/live-pointer.ts';
import { guardCommit, type GuardOutcome, type GuardSettings } from './guard.ts';
import { listStagedShards, listVersions, packOf, readCommit, readShardRecord, writeCommit, type Commit } from './version-store.ts';

export interface CommitSummary {
  version: string;
  shards: number;
  files: number;
  /** The version that was live before, if any. */
  replaced: string | null;
  /** It was live already: the pointer was not touched. */
  alreadyLive: boolean;
  /** The night's guard: the shards' night and its judgement (null: no guard was asked for). */
  guard: GuardOutcome | null;
  seconds: number;
}

export async function commitVersion(
  client: S3Client,
  location: Location,
  requested: string | undefined,
  abortSignal?: AbortSignal,
  guard?: GuardSettings,
): Promise<CommitSummary> {
  const started = performance.now();
  const where = describe(location);
  const pointer = await readPointer(client, location, abortSignal);
  const version = requested ?? (await newestStaged(client, location, pointer?.version ?? null, abortSignal));
  const summary: CommitSummary = {
    version,
    shards: 0,
    files: 0,
    replaced: pointer?.version ?? null,
    alreadyLive: pointer?.version === version,
    guard: null,
    seconds: 0,
  };
  const refuse = (why: string) =>
    new UserError(
      `--commit: version ${version} at ${where} cannot go live: ${why}; the live version ${pointer ? `(${pointer.version}) ` : ''}is untouched`,
    );

  const staged = await listStagedShards(client, location, version, abortSignal);
  if (staged.length === 0) {
    throw refuse("no shard of it is staged (is the id right? publish each shard's tree first)");
  }
  const counts = [...new Set(staged.map((shard) => shard.count))];
  if (counts.length > 1) throw refuse(`its staged shards come from builds of different shard counts (${counts.join(', ')})`);
  const count = counts[0]!;
  const have = new Set(staged.map((shard) => shard.index));
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((index) => !have.has(index));
  if (missing.length > 0) {
    throw refuse(
      `${missing.length} of ${count} shards are not staged (shard${missing.length > 1 ? 's' : ''} ${missing.join(', ')}; a stage that was stopped is not staged until it is run again to its end)`,
    );
  }

  const records: Commit['records'] = [];
  let shared: string | null = null;
  let build: string | null = null;
  for (let index = 1; index <= count; index++) {
    const record = await readShardRecord(client, location, version, { index, count }, abortSignal);
    if (!record) throw refuse(`shard ${index} of ${count} was removed while committing`);
    const sha256 = crypto.createHash('sha256').update(record.text).digest('hex');
    if (record.metadata.sha256 !== sha256) throw refuse(`the manifest of shard ${index} of ${count} is not the one its stage wrote`);
    const pack = packOf(record.metadata);
    if (record.metadata.format !== STORAGE_FORMAT || !pack)
      throw refuse(`shard ${index} of ${count} was staged by another version of wallet-snapshot`);
    if (build !== null && record.metadata.build !== build)
      throw refuse(`shard ${index} of ${count} comes from another build (${record.metadata.build}) than shard 1 (${build})`);
    build = record.metadata.build ?? null;
    const { sharedLines, sharedFiles, files, foreign } = readShardLines(record.text, index, count);
    if (foreign) throw refuse(`shard ${index} of ${count} holds ${foreign}, a wallet of another shard`);
    if (shared !== null && sharedLines !== shared)
      throw refuse(`shard ${index} of ${count} disagrees with shard 1 on the files every shard writes alike (leaderboards, seasons, meta)`);
    shared = sharedLines;
    records.push({ shard: index, sha256, files, pack });
    // Shared files are counted once.
    summary.files += index === 1 ? files : files - sharedFiles;
  }
  summary.shards = count;
  // The night's guard (docs/reliability.md#guard) on the shards' summaries added up: a refusal throws before the pointer.
  const context = { version, count, live: pointer?.version ?? null, alreadyLive: summary.alreadyLive };
  if (guard) summary.guard = await guardCommit(client, location, guard, context, abortSignal);

  if (!summary.alreadyLive) {
    // Before the pointer is written: all N shards are staged and agree.
    await goLive(
      client,
      location,
      version,
      { format: STORAGE_FORMAT, shards: count, records, committedAt: new Date().toISOString() },
      pointer,
      abortSignal,
    );
  }
  summary.seconds = (performance.now() - started) / 1000;
  return summary;
}

/**
 * A staged version made live: its commit (unless written already), then the pointer, naming each
 * shard's pack for the readers. `pointer`: the live one, which goes to the history.
 */
export async function goLive(
  client: S3Client,
  location: Location,
  version: string,
  commit: Commit,
  pointer: LivePointer | null,
  abortSignal?: AbortSignal,
): Promise<void> {
  if (!(await readCommit(client, location, version, abortSignal))) await writeCommit(client, location, version, commit, abortSignal);
  await writePointer(
    client,
    location,
    {
      version,
      previous: pointer ? [pointer.version, ...pointer.previous].filter((id) => id !== version) : [],
      publishedAt: new Date().toISOString(),
      shards: packsOf(commit),
    },
    abortSignal,
  );
}

/** Each shard's pack, in shard order, as the pointer names them. */
export function packsOf(commit: Commit): LivePointer['shards'] {
  return [...commit.records].sort((a, b) => a.shard - b.shard).map((record) => record.pack);
}

/** The shared files' lines (in order) and the count of files of one shard's manifest; a wallet of another shard, if any. */
function readShardLines(
  text: string,
  index: number,
  count: number,
): { sharedLines: string; sharedFiles: number; files: number; foreign: string | null } {
  const shared: string[] = [];
  let files = 0;
  let foreign: string | null = null;
  const walletPrefix = `${ADDRESS_DIR}/`;
  for (let start = 0, end = text.indexOf('\n'); end !== -1; start = end + 1, end = text.indexOf('\n', start)) {
    files++;
    const path = text.slice(start + MANIFEST_LINE_PATH_AT, end);
    if (isSharedFile(path)) shared.push(text.slice(start, end));
    else if (foreign === null && path.startsWith(walletPrefix)) {
      const wallet = path.slice(walletPrefix.length, path.indexOf('/', walletPrefix.length));
      if (shardOf(wallet, count) !== index) foreign = wallet;
    }
  }
  return { sharedLines: shared.join('\n'), sharedFiles: shared.length, files, foreign };
}

/**
 * Without `--version`: the newest version with staged shards and no commit, newer than the live
 * one (by day); two candidates of one day are refused, naming both.
 */
async function newestStaged(client: S3Client, location: Location, live: string | null, abortSignal?: AbortSignal): Promise<string> {
  const candidates: string[] = [];
  for (const version of await listVersions(client, location, abortSignal)) {
    if (version === live || (live !== null && version.slice(0, 10) < live.slice(0, 10))) continue;
    if ((await listStagedShards(client, location, version, abortSignal)).length === 0) continue;
    if (await readCommit(client, location, version, abortSignal)) continue;
    candidates.push(version);
  }
  if (candidates.length === 0)
    throw new UserError(
      `--commit: no staged version waits at ${describe(location)} (stage each shard with publish --dir SHARD_TREE first)`,
    );
  const day = candidates
    .map((version) => version.slice(0, 10))
    .sort()
    .at(-1)!;
  const newest = candidates.filter((version) => version.startsWith(day));
  if (newest.length > 1)
    throw new UserError(
      `--commit: ${newest.length} staged versions of ${day} wait at ${describe(location)} (${newest.join(', ')}); name one with --version ID`,
    );
  return newest[0]!;
}
