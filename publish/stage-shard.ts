/**
 * `publish --dir SHARD_TREE`: one shard of a sharded build staged into the build's version, the
 * pointer untouched. The version derives from what every shard shares (read-tree.ts,
 * shardedVersionIdOf), so the N jobs of a night stage into one version without talking to each
 * other; `--commit` (commit.ts) makes it live once all N are staged.
 *
 * In the bucket, a shard is staged once its manifest (`_publish/shards/K-of-N.sha256.gz`) is
 * written, after every object it names. A `.started` mark beside it, holding the digest of that
 * manifest, tells a rerun after a kill that objects of this very shard may be stored already:
 * only then is the version listed, so that a first stage never lists the other shards' objects.
 */
import crypto from 'node:crypto';
import { HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { readPointer } from './live-pointer.ts';
import { objectKey } from './location.ts';
import { RECORD_CACHE_CONTROL, shardNightSummaryPath, shardStartedPath } from '../tree/bucket.ts';
import type { NightGuard } from './guard.ts';
import type { CheckedTree } from './publish-tree.ts';
import { manifestText, shardedVersionIdOf, STORAGE_FORMAT } from './read-tree.ts';
import { storageFailure } from './storage.ts';
import { add, count, distinctBlobs, emptyTransfers, transferFiles, type PublishOptions, type TransferSummary } from './upload-version.ts';
import { blobsOf, readCommit, readManifest, readShardRecord, storedBlobs, storedPaths, writeShardRecord } from './version-store.ts';

export interface StageSummary extends TransferSummary {
  version: string;
  shard: { index: number; count: number };
  /** This shard was staged already (the same manifest is stored): nothing was sent. */
  alreadyStaged: boolean;
  /** The version is committed already (live, or live before). */
  committed: boolean;
  seconds: number;
}

export async function stageShard(options: PublishOptions, tree: CheckedTree, guard?: NightGuard): Promise<StageSummary> {
  const started = performance.now();
  const { client, location, progress, abortSignal } = options;
  const { dir, files, records } = tree;
  const shard = records.shard;
  const build = records.summaries[0]!.build;
  const version = shardedVersionIdOf(tree.lastClosedDay, shard.count, build, files);
  const text = manifestText(files);
  const digest = crypto.createHash('sha256').update(text).digest('hex');
  const summary: StageSummary = { version, shard, alreadyStaged: false, committed: false, ...emptyTransfers(), seconds: 0 };
  const finish = () => {
    progress.end();
    summary.seconds = (performance.now() - started) / 1000;
    return summary;
  };

  progress.start(`stage shard ${shard.index} of ${shard.count}`);
  const staged = await readShardRecord(client, location, version, shard, abortSignal);
  if (staged?.metadata.sha256 === digest) {
    summary.alreadyStaged = true;
    summary.committed = (await readCommit(client, location, version, abortSignal)) !== null;
    for (const file of files) count(summary.skipped, file, 0);
    for (const blob of distinctBlobs(files)) add(summary.blobs.stored, blob.length, 0);
    return finish();
  }

  // Objects of this shard may be stored already only if a stage of the same manifest began.
  const startedKey = objectKey(location, version, shardStartedPath(shard));
  const began = await headMetadata(options, startedKey);
  const resuming = began?.sha256 === digest;
  const stored = resuming ? await storedPaths(client, location, version, abortSignal) : new Set<string>();
  if (!resuming) await putMark(options, startedKey, { sha256: digest });

  const pointer = await readPointer(client, location, abortSignal);
  // The live version's files this shard may copy: its own wallets' and the shared ones.
  const live = pointer ? await readManifest(client, location, pointer.version, { abortSignal, shard }) : null;
  const knownBlobs = live?.sameFormat ? blobsOf(live) : new Set<string>();
  if (resuming) for (const blob of await storedBlobs(client, location, abortSignal)) knownBlobs.add(blob);

  progress.start(`stage shard ${shard.index} of ${shard.count} into version ${version}`);
  await transferFiles(options, dir, files, { version, stored, live: live?.sameFormat ? { version: pointer!.version, manifest: live } : null, knownBlobs }, summary);

  // The shard's night summary, for the commit to add up (before the record that makes the shard staged).
  await guard?.record(client, location, version, shardNightSummaryPath(shard), abortSignal);
  await writeShardRecord(
    client,
    location,
    version,
    shard,
    { text, metadata: { sha256: digest, files: String(files.length), build: `${build.now} ${build.inputs}`, format: STORAGE_FORMAT } },
    abortSignal,
  );
  return finish();
}

async function headMetadata(options: PublishOptions, key: string): Promise<Record<string, string> | null> {
  try {
    const answer = await options.client.send(new HeadObjectCommand({ Bucket: options.location.bucket, Key: key }), { abortSignal: options.abortSignal });
    return { ...answer.Metadata };
  } catch (error) {
    const name = (error as { name?: string }).name;
    if (name === 'NotFound' || name === 'NoSuchKey') return null;
    throw storageFailure(error, options.location, `reading ${key}`);
  }
}

async function putMark(options: PublishOptions, key: string, metadata: Record<string, string>): Promise<void> {
  try {
    await options.client.send(
      new PutObjectCommand({ Bucket: options.location.bucket, Key: key, Body: new Uint8Array(0), ContentLength: 0, ContentType: 'text/plain; charset=utf-8', CacheControl: RECORD_CACHE_CONTROL, Metadata: metadata }),
      { abortSignal: options.abortSignal },
    );
  } catch (error) {
    throw storageFailure(error, options.location, `writing ${key}`);
  }
}
