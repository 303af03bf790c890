/**
 * The versions under a prefix: listing their objects, their shards' records and commits, and
 * removing them.
 */
import zlib from 'node:zlib';
import { DeleteObjectsCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { z } from 'zod';
import { UserError } from '../core/errors.ts';
import { describe, objectKey, versionPrefix, versionsPrefix, type Location } from './location.ts';
import {
  COMMIT_PATH,
  RECORD_CACHE_CONTROL,
  SHARD_RECORD_NAME,
  shardRecordPath,
  SHARDS_FOLDER,
  VERSION_ID_PATTERN,
} from '../tree/bucket.ts';
import { PackedShardSchema, type PackedShard } from '../tree/live-pointer.ts';
import { listObjects, readObject, readObjectText, storageFailure, writeObject } from './storage.ts';

/** Every key under `prefix`, one page of up to 1,000 at a time. */
export async function* listKeys(client: S3Client, location: Location, prefix: string, abortSignal?: AbortSignal): AsyncGenerator<string> {
  for await (const object of listObjects(client, location, prefix, abortSignal)) yield object.key;
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
      page = await client.send(new ListObjectsV2Command({ Bucket: location.bucket, Prefix: prefix, StartAfter: startAfter, MaxKeys: 1 }), {
        abortSignal,
      });
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

/** A staged shard's manifest (the `sha256sum` lines of its files) and what it was stored with. */
export interface ShardRecord {
  text: string;
  /** `sha256` of the text, `files`, `build` ("<now> <inputs>"), `format`, `pack` (the shard's PackedShard as JSON). */
  metadata: Record<string, string>;
}

export async function readShardRecord(
  client: S3Client,
  location: Location,
  version: string,
  shard: { index: number; count: number },
  abortSignal?: AbortSignal,
): Promise<ShardRecord | null> {
  return readGzipObject(client, location, objectKey(location, version, shardRecordPath(shard)), abortSignal);
}

/** Written after the shard's archives and index: from then on the shard is staged. */
export async function writeShardRecord(
  client: S3Client,
  location: Location,
  version: string,
  shard: { index: number; count: number },
  record: ShardRecord,
  abortSignal?: AbortSignal,
): Promise<void> {
  await writeGzipObject(client, location, objectKey(location, version, shardRecordPath(shard)), record.text, record.metadata, abortSignal);
}

/** The shards staged under a version: each record's shard index and count, from the keys alone. */
export async function listStagedShards(
  client: S3Client,
  location: Location,
  version: string,
  abortSignal?: AbortSignal,
): Promise<{ index: number; count: number }[]> {
  const prefix = objectKey(location, version, SHARDS_FOLDER);
  const shards: { index: number; count: number }[] = [];
  for await (const key of listKeys(client, location, prefix, abortSignal)) {
    const match = SHARD_RECORD_NAME.exec(key.slice(prefix.length));
    if (match) shards.push({ index: Number(match[1]), count: Number(match[2]) });
  }
  return shards.sort((a, b) => a.count - b.count || a.index - b.index);
}

const CommitSchema = z
  .object({
    format: z.string(),
    shards: z.number().int().min(1),
    records: z.array(
      z
        .object({
          shard: z.number().int().min(1),
          sha256: z.string().regex(/^[0-9a-f]{64}$/),
          files: z.number().int().min(0),
          pack: PackedShardSchema,
        })
        .strict(),
    ),
    committedAt: z.iso.datetime(),
  })
  .strict();
export type Commit = z.infer<typeof CommitSchema>;

export async function readCommit(client: S3Client, location: Location, version: string, abortSignal?: AbortSignal): Promise<Commit | null> {
  const key = objectKey(location, version, COMMIT_PATH);
  const text = await readObjectText(client, location, key, abortSignal);
  if (text === null) return null;
  const parsed = CommitSchema.safeParse(safeJson(text));
  if (!parsed.success)
    throw new UserError(
      `${describe(location)}: ${key} is not a commit written by wallet-snapshot publish; remove version ${version} or publish it again`,
    );
  return parsed.data;
}

/** Written after every shard is staged and before the pointer: the sharded version is complete. */
export async function writeCommit(
  client: S3Client,
  location: Location,
  version: string,
  commit: Commit,
  abortSignal?: AbortSignal,
): Promise<void> {
  const key = objectKey(location, version, COMMIT_PATH);
  await writeObject(
    client,
    location,
    key,
    {
      body: `${JSON.stringify(CommitSchema.parse(commit))}\n`,
      contentType: 'application/json; charset=utf-8',
      cacheControl: RECORD_CACHE_CONTROL,
    },
    abortSignal,
  );
}

/** An object stored as a .gz file without Content-Encoding, so no server or proxy decodes it on the way. */
async function readGzipObject(
  client: S3Client,
  location: Location,
  key: string,
  abortSignal?: AbortSignal,
): Promise<{ text: string; metadata: Record<string, string> } | null> {
  const object = await readObject(client, location, key, { abortSignal });
  if (object === null) return null;
  const { bytes } = object;
  const text = (bytes[0] === 0x1f && bytes[1] === 0x8b ? zlib.gunzipSync(bytes) : Buffer.from(bytes)).toString('utf8');
  return { text, metadata: object.metadata };
}

async function writeGzipObject(
  client: S3Client,
  location: Location,
  key: string,
  text: string,
  metadata: Record<string, string>,
  abortSignal?: AbortSignal,
): Promise<number> {
  const body = zlib.gzipSync(text);
  await writeObject(
    client,
    location,
    key,
    { body, contentType: 'application/gzip', cacheControl: RECORD_CACHE_CONTROL, metadata },
    abortSignal,
  );
  return body.length;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const PRUNE_AFTERMATH = 'the live version is unaffected, and the next --keep removes what is left of it';

/** DeleteObjects takes at most 1,000 keys per request. */
const DELETE_BATCH = 1000;

/**
 * Removes every object of a version (its archives whole), its commit first, so that a
 * half-removed version is never taken for complete.
 */
export async function deleteVersion(client: S3Client, location: Location, version: string, abortSignal?: AbortSignal): Promise<number> {
  const first = [objectKey(location, version, COMMIT_PATH)];
  const keys: string[] = [];
  for await (const key of listKeys(client, location, versionPrefix(location, version), abortSignal))
    if (!first.includes(key)) keys.push(key);
  await deleteKeys(client, location, first, `removing the objects of version ${version}`, abortSignal);
  await deleteKeys(client, location, keys, `removing the objects of version ${version}`, abortSignal);
  return keys.length + 1;
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
    if (failed)
      throw storageFailure(
        Object.assign(new Error(`${failed.Key}: ${failed.Message}`), { name: failed.Code ?? 'DeleteFailed' }),
        location,
        doing,
        PRUNE_AFTERMATH,
      );
  }
}

/** The shard's pack as its record names it; null for a record without one (a stage of another release). */
export function packOf(metadata: Record<string, string>): PackedShard | null {
  try {
    const parsed = PackedShardSchema.safeParse(JSON.parse(metadata.pack ?? ''));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
