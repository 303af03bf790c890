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
import { blobsPrefix, manifestKey, versionPrefix, versionsPrefix, VERSION_ID_PATTERN, type Location } from './location.ts';
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

/** A version's manifest, or null when it has none (it was never completed, or is gone). */
export async function readManifest(client: S3Client, location: Location, version: string, abortSignal?: AbortSignal): Promise<VersionManifest | null> {
  const key = manifestKey(location, version);
  try {
    const answer = await client.send(new GetObjectCommand({ Bucket: location.bucket, Key: key }), { abortSignal });
    const bytes = await answer.Body!.transformToByteArray();
    // Stored as a .gz file without Content-Encoding, so no server or proxy decodes it on the way.
    const text = (bytes[0] === 0x1f && bytes[1] === 0x8b ? zlib.gunzipSync(bytes) : Buffer.from(bytes)).toString('utf8');
    return { ...parseManifest(text), sameFormat: answer.Metadata?.format === STORAGE_FORMAT };
  } catch (error) {
    if ((error as { name?: string }).name === 'NoSuchKey') return null;
    throw storageFailure(error, location, `reading ${key}`);
  }
}

/** Written after every object of the version: from then on the version is complete. */
export async function writeManifest(client: S3Client, location: Location, version: string, manifest: string, abortSignal?: AbortSignal): Promise<number> {
  const key = manifestKey(location, version);
  const body = zlib.gzipSync(manifest);
  try {
    await client.send(
      new PutObjectCommand({ Bucket: location.bucket, Key: key, Body: body, ContentType: 'application/gzip', Metadata: { format: STORAGE_FORMAT } }),
      { abortSignal },
    );
  } catch (error) {
    throw storageFailure(error, location, `writing ${key}`);
  }
  return body.length;
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
export async function deleteVersion(client: S3Client, location: Location, version: string, abortSignal?: AbortSignal): Promise<number> {
  const manifest = manifestKey(location, version);
  const keys = [manifest];
  for await (const key of listKeys(client, location, versionPrefix(location, version), abortSignal)) if (key !== manifest) keys.push(key);
  await deleteKeys(client, location, keys, `removing the objects of version ${version}`, abortSignal);
  return keys.length - 1;
}

/**
 * Removes the blobs that no stored version's manifest names; returns how many. A version without
 * a manifest (a publish interrupted and not yet rerun) may lose blobs it uploaded: its rerun lists
 * the blobs and uploads the missing ones again before its pointer is written.
 */
export async function deleteUnreferencedBlobs(client: S3Client, location: Location, abortSignal?: AbortSignal): Promise<number> {
  const referenced = new Set<string>();
  for (const version of await listVersions(client, location, abortSignal)) {
    const manifest = await readManifest(client, location, version, abortSignal);
    if (manifest) for (const blob of blobsOf(manifest)) referenced.add(blob);
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
