/**
 * The versions under a prefix: listing their objects, their manifests, and removing them.
 */
import zlib from 'node:zlib';
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { z } from 'zod';
import { UserError } from '../core/errors.ts';
import { blobsPrefix, describe, manifestKey, objectKey, versionPrefix, versionsPrefix, type Location } from './location.ts';
import { COMMIT_PATH, RECORD_CACHE_CONTROL, SHARD_RECORD_NAME, shardRecordPath, SHARDS_FOLDER, VERSION_ID_PATTERN } from '../tree/bucket.ts';
import { parseManifest, STORAGE_FORMAT, type ParsedManifest } from './read-tree.ts';
import { storageFailure } from './storage.ts';

/** Every key under `prefix`, one page of up to 1,000 at a time. */
export async function* listKeys(client: S3Client, location: Location, prefix: string, abortSignal?: AbortSignal): AsyncGenerator<string> {
  let token: string | undefined;
  do {
    let page;
    try {
      page = await client.send(new ListObjectsV2Command({ Bucket: location.bucket, Prefix: prefix, ContinuationToken: token }), { abortSignal });
    } catch (error) {
      throw storageFailure(error, location, `listing ${prefix}`);
    }
    for (const object of page.Contents ?? []) if (object.Key) yield object.Key;
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
}

/** The tree paths already stored under a version (a publish interrupted earlier wrote them). */
export async function storedPaths(client: S3Client, location: Location, version: string, abortSignal?: AbortSignal): Promise<Set<string>> {
  const prefix = versionPrefix(location, version);
  const paths = new Set<string>();
  for await (const key of listKeys(client, location, prefix, abortSignal)) paths.add(key.slice(prefix.length));
  return paths;
}

/**
 * Every version id under the prefix, whatever its state: one request per version, each asking
 * for the first key after the previous version's ("<id>0" sorts after every "<id>/..." key and
 * before the next id). A delimiter listing would be one request, but S3-compatible servers differ
 * on common prefixes that hold only nested keys (s3rver lists none), and this reads the same
 * everywhere.
 */
export async function listVersions(client: S3Client, location: Location, abortSignal?: AbortSignal): Promise<string[]> {
  const prefix = versionsPrefix(location);
  const versions: string[] = [];
  let startAfter: string | undefined;
  for (;;) {
    let page;
    try {
      page = await client.send(new ListObjectsV2Command({ Bucket: location.bucket, Prefix: prefix, StartAfter: startAfter, MaxKeys: 1 }), { abortSignal });
    } catch (error) {
      throw storageFailure(error, location, `listing ${prefix}`);
    }
    const key = page.Contents?.[0]?.Key;
    if (!key) return versions;
    const id = key.slice(prefix.length).split('/')[0]!;
    if (VERSION_ID_PATTERN.test(id)) versions.push(id);
    startAfter = `${prefix}${id}0`;
  }
}

export interface VersionManifest extends ParsedManifest {
  /** Whether its objects are stored the way this publish stores them (so they may be copied). */
  sameFormat: boolean;
}

/**
 * A version's manifest, or null when it is not complete (never completed, or gone): a whole
 * tree's `_publish/manifest.sha256.gz`, or for a committed sharded version the union of its
 * shards' manifests. `shard`: only the files that shard of a build with the same shard count
 * holds are needed (its wallets and the shared files), so only that shard's manifest is read.
 */
export async function readManifest(
  client: S3Client,
  location: Location,
  version: string,
  options: { abortSignal?: AbortSignal; shard?: { index: number; count: number } } = {},
): Promise<VersionManifest | null> {
  const whole = await readGzipObject(client, location, manifestKey(location, version), options.abortSignal);
  if (whole) return { ...parseManifest(whole.text), sameFormat: whole.metadata.format === STORAGE_FORMAT };
  const commit = await readCommit(client, location, version, options.abortSignal);
  if (!commit) return null;
  const shards = options.shard?.count === commit.shards ? [options.shard.index] : commit.records.map((record) => record.shard);
  const manifest: VersionManifest = { files: new Map(), blobs: new Map(), sameFormat: commit.format === STORAGE_FORMAT };
  for (const index of shards) {
    const record = await readShardRecord(client, location, version, { index, count: commit.shards }, options.abortSignal);
    // A committed version whose shard manifest is gone is not whole any more.
    if (!record) return null;
    const part = parseManifest(record.text);
    for (const [path, sha256] of part.files) manifest.files.set(path, sha256);
    for (const [path, blob] of part.blobs) manifest.blobs.set(path, blob);
  }
  return manifest;
}

/** Written after every object of the version: from then on the version is complete. */
export async function writeManifest(client: S3Client, location: Location, version: string, manifest: string, abortSignal?: AbortSignal): Promise<number> {
  return writeGzipObject(client, location, manifestKey(location, version), manifest, { format: STORAGE_FORMAT }, abortSignal);
}

/** A staged shard's manifest (the `sha256sum` lines of its files, then its blob lines) and what it was stored with. */
export interface ShardRecord {
  text: string;
  /** `sha256` of the text, `files`, `build` ("<now> <inputs>"), `format`. */
  metadata: Record<string, string>;
}

export async function readShardRecord(client: S3Client, location: Location, version: string, shard: { index: number; count: number }, abortSignal?: AbortSignal): Promise<ShardRecord | null> {
  return readGzipObject(client, location, objectKey(location, version, shardRecordPath(shard)), abortSignal);
}

/** Written after every object of the shard: from then on the shard is staged. */
export async function writeShardRecord(client: S3Client, location: Location, version: string, shard: { index: number; count: number }, record: ShardRecord, abortSignal?: AbortSignal): Promise<void> {
  await writeGzipObject(client, location, objectKey(location, version, shardRecordPath(shard)), record.text, record.metadata, abortSignal);
}

/** The shards staged under a version: each record's shard index and count, from the keys alone. */
export async function listStagedShards(client: S3Client, location: Location, version: string, abortSignal?: AbortSignal): Promise<{ index: number; count: number }[]> {
  const prefix = objectKey(location, version, SHARDS_FOLDER);
  const shards: { index: number; count: number }[] = [];
  for await (const key of listKeys(client, location, prefix, abortSignal)) {
    const match = SHARD_RECORD_NAME.exec(key.slice(prefix.length));
    if (match) shards.push({ index: Number(match[1]), count: Number(match[2]) });
  }
  return shards.sort((a, b) => a.count - b.count || a.index - b.index);
}

export const CommitSchema = z
  .object({
    format: z.string(),
    shards: z.number().int().min(1),
    records: z.array(z.object({ shard: z.number().int().min(1), sha256: z.string().regex(/^[0-9a-f]{64}$/), files: z.number().int().min(0) }).strict()),
    committedAt: z.iso.datetime(),
  })
  .strict();
export type Commit = z.infer<typeof CommitSchema>;

export async function readCommit(client: S3Client, location: Location, version: string, abortSignal?: AbortSignal): Promise<Commit | null> {
  const key = objectKey(location, version, COMMIT_PATH);
  let text: string;
  try {
    const answer = await client.send(new GetObjectCommand({ Bucket: location.bucket, Key: key }), { abortSignal });
    text = await answer.Body!.transformToString('utf8');
  } catch (error) {
    if ((error as { name?: string }).name === 'NoSuchKey') return null;
    throw storageFailure(error, location, `reading ${key}`);
  }
  const parsed = CommitSchema.safeParse(safeJson(text));
  if (!parsed.success) throw new UserError(`${describe(location)}: ${key} is not a commit written by wallet-snapshot publish; remove version ${version} or publish it again`);
  return parsed.data;
}

/** Written after every shard is staged and before the pointer: the sharded version is complete. */
export async function writeCommit(client: S3Client, location: Location, version: string, commit: Commit, abortSignal?: AbortSignal): Promise<void> {
  const key = objectKey(location, version, COMMIT_PATH);
  try {
    await client.send(
      new PutObjectCommand({ Bucket: location.bucket, Key: key, Body: `${JSON.stringify(CommitSchema.parse(commit))}\n`, ContentType: 'application/json; charset=utf-8', CacheControl: RECORD_CACHE_CONTROL }),
      { abortSignal },
    );
  } catch (error) {
    throw storageFailure(error, location, `writing ${key}`);
  }
}

/** An object stored as a .gz file without Content-Encoding, so no server or proxy decodes it on the way. */
async function readGzipObject(client: S3Client, location: Location, key: string, abortSignal?: AbortSignal): Promise<{ text: string; metadata: Record<string, string> } | null> {
  try {
    const answer = await client.send(new GetObjectCommand({ Bucket: location.bucket, Key: key }), { abortSignal });
    const bytes = await answer.Body!.transformToByteArray();
    const text = (bytes[0] === 0x1f && bytes[1] === 0x8b ? zlib.gunzipSync(bytes) : Buffer.from(bytes)).toString('utf8');
    return { text, metadata: { ...answer.Metadata } };
  } catch (error) {
    if ((error as { name?: string }).name === 'NoSuchKey') return null;
    throw storageFailure(error, location, `reading ${key}`);
  }
}

async function writeGzipObject(client: S3Client, location: Location, key: string, text: string, metadata: Record<string, string>, abortSignal?: AbortSignal): Promise<number> {
  const body = zlib.gzipSync(text);
  try {
    await client.send(
      new PutObjectCommand({ Bucket: location.bucket, Key: key, Body: body, ContentType: 'application/gzip', CacheControl: RECORD_CACHE_CONTROL, Metadata: metadata }),
      { abortSignal },
    );
  } catch (error) {
    throw storageFailure(error, location, `writing ${key}`);
  }
  return body.length;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The sha256 of every blob stored under the prefix (one request per 1,000). */
export async function storedBlobs(client: S3Client, location: Location, abortSignal?: AbortSignal): Promise<Set<string>> {
  const prefix = blobsPrefix(location);
  const blobs = new Set<string>();
  for await (const key of listKeys(client, location, prefix, abortSignal)) blobs.add(key.slice(prefix.length));
  return blobs;
}

/** The blobs a version's documents are assembled from. */
export function blobsOf(manifest: VersionManifest): Set<string> {
  return new Set([...manifest.blobs.values()].map((blob) => blob.sha256));
}

const PRUNE_AFTERMATH = 'the live version is unaffected, and the next --keep removes what is left of it';

/** DeleteObjects takes at most 1,000 keys per request. */
const DELETE_BATCH = 1000;

/** Removes every object of a version, its manifest first, so that a half-removed version is never taken for complete. */
/**
 * Removes every object of a version, what marks it complete first (its manifest, its commit), so
 * that a half-removed version is never taken for complete.
 */
export async function deleteVersion(client: S3Client, location: Location, version: string, abortSignal?: AbortSignal): Promise<number> {
  const first = [manifestKey(location, version), objectKey(location, version, COMMIT_PATH)];
  const keys: string[] = [];
  for await (const key of listKeys(client, location, versionPrefix(location, version), abortSignal)) if (!first.includes(key)) keys.push(key);
  await deleteKeys(client, location, first, `removing the objects of version ${version}`, abortSignal);
  await deleteKeys(client, location, keys, `removing the objects of version ${version}`, abortSignal);
  return keys.length + 1;
}

/**
 * Removes the blobs that no stored version refers to; returns how many. A version counts with its
 * manifest, or, staged and not committed, with the manifests of its staged shards (a commit may
 * follow). A version without either (a publish interrupted and not yet rerun) may lose blobs it
 * uploaded: its rerun lists the blobs and uploads the missing ones again before it completes.
 */
export async function deleteUnreferencedBlobs(client: S3Client, location: Location, abortSignal?: AbortSignal): Promise<number> {
  const referenced = new Set<string>();
  for (const version of await listVersions(client, location, abortSignal)) {
    const manifest = await readManifest(client, location, version, { abortSignal });
    if (manifest) for (const blob of blobsOf(manifest)) referenced.add(blob);
    else {
      for (const shard of await listStagedShards(client, location, version, abortSignal)) {
        const record = await readShardRecord(client, location, version, shard, abortSignal);
        if (record) for (const blob of blobsOf({ ...parseManifest(record.text), sameFormat: true })) referenced.add(blob);
      }
    }
  }
  const keys = [...(await storedBlobs(client, location, abortSignal))].filter((blob) => !referenced.has(blob)).map((blob) => `${blobsPrefix(location)}${blob}`);
  await deleteKeys(client, location, keys, 'removing blobs no version refers to', abortSignal);
  return keys.length;
}

async function deleteKeys(client: S3Client, location: Location, keys: string[], doing: string, abortSignal?: AbortSignal): Promise<void> {
  for (let start = 0; start < keys.length; start += DELETE_BATCH) {
    const batch = keys.slice(start, start + DELETE_BATCH);
    let answer;
    try {
      answer = await client.send(
        new DeleteObjectsCommand({ Bucket: location.bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }),
        { abortSignal },
      );
    } catch (error) {
      throw storageFailure(error, location, doing, PRUNE_AFTERMATH);
    }
    const failed = answer.Errors?.[0];
    if (failed) throw storageFailure(Object.assign(new Error(`${failed.Key}: ${failed.Message}`), { name: failed.Code ?? 'DeleteFailed' }), location, doing, PRUNE_AFTERMATH);
  }
}
