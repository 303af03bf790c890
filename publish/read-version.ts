/**
 * Reads a published version back, object by object, as stored: for tests and tools that load it
 * into another store (e.g. a Miniflare R2 bucket: `bucket.put(object.key, object.body,
 * { httpMetadata: object.httpMetadata, customMetadata: object.customMetadata })`). The version's
 * objects come first, then the blobs its daily documents in two parts refer to (metadata `blob`).
 */
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { UserError } from '../core/errors.ts';
import { readPointer } from './live-pointer.ts';
import { blobKey, describe, versionPrefix, type Location } from './location.ts';
import { PUBLISH_FOLDER } from '../tree/bucket.ts';
import { storageFailure } from './storage.ts';
import { listKeys } from './version-store.ts';

export interface PublishedObject {
  /** The object's key in the bucket. */
  key: string;
  /** A file of the version's tree, or a blob of closed months' rows shared by versions. */
  kind: 'file' | 'blob';
  /** A file's path in the tree (the key without the version prefix); a blob's `blobs/<sha256>`. */
  path: string;
  /** The bytes as stored (gzip when `httpMetadata.contentEncoding` says so). */
  body: Uint8Array;
  httpMetadata: { contentType?: string; contentEncoding?: string; cacheControl?: string };
  /**
   * `sha256` (of the uncompressed bytes: a whole document's, for one stored in two parts) and
   * `mtime` (ms since the epoch, decimal); for a document in two parts also `blob` (the blob's
   * sha256), `blob-at` (where its bytes go) and `size` (of the whole document).
   */
  customMetadata: Record<string, string>;
}

/** The live version's id, or the given one; every object of its tree (not publish's own records under `_publish/`). */
export async function* readPublishedVersion(client: S3Client, location: Location, version?: string): AsyncGenerator<PublishedObject> {
  const id = version ?? (await readPointer(client, location))?.version;
  if (!id) throw new UserError(`nothing is published at ${describe(location)} (no live.json)`);
  const prefix = versionPrefix(location, id);
  const blobs = new Set<string>();
  for await (const key of listKeys(client, location, prefix)) {
    const path = key.slice(prefix.length);
    if (path.startsWith(`${PUBLISH_FOLDER}/`)) continue;
    const object = await readObject(client, location, key, 'file', path);
    if (object.customMetadata.blob) blobs.add(object.customMetadata.blob);
    yield object;
  }
  for (const blob of blobs) yield await readObject(client, location, blobKey(location, blob), 'blob', `blobs/${blob}`);
}

async function readObject(client: S3Client, location: Location, key: string, kind: PublishedObject['kind'], path: string): Promise<PublishedObject> {
  try {
    const answer = await client.send(new GetObjectCommand({ Bucket: location.bucket, Key: key }));
    return {
      key,
      kind,
      path,
      body: await answer.Body!.transformToByteArray(),
      httpMetadata: { contentType: answer.ContentType, contentEncoding: answer.ContentEncoding, cacheControl: answer.CacheControl },
      customMetadata: { ...answer.Metadata },
    };
  } catch (error) {
    throw storageFailure(error, location, `reading ${key}`, 'nothing was changed');
  }
}
