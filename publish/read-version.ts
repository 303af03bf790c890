/**
 * Reads a published version back, object by object, as stored: for tests and tools that load it
 * into another store (e.g. a Miniflare R2 bucket: `bucket.put(object.path, object.body,
 * { httpMetadata: object.httpMetadata, customMetadata: object.customMetadata })`).
 */
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { UserError } from '../build/errors.ts';
import { readPointer } from './live-pointer.ts';
import { describe, MANIFEST_PATH, versionPrefix, type Location } from './location.ts';
import { storageFailure } from './storage.ts';
import { listKeys } from './version-store.ts';

export interface PublishedObject {
  /** The object's key in the bucket. */
  key: string;
  /** Its path in the tree (the key without the version prefix). */
  path: string;
  /** The bytes as stored (gzip when `httpMetadata.contentEncoding` says so). */
  body: Uint8Array;
  httpMetadata: { contentType?: string; contentEncoding?: string; cacheControl?: string };
  /** `sha256` (of the uncompressed bytes) and `mtime` (ms since the epoch, decimal). */
  customMetadata: Record<string, string>;
}

/** The live version's id, or the given one; every object of it but its manifest. */
export async function* readPublishedVersion(client: S3Client, location: Location, version?: string): AsyncGenerator<PublishedObject> {
  const id = version ?? (await readPointer(client, location))?.version;
  if (!id) throw new UserError(`nothing is published at ${describe(location)} (no live.json)`);
  const prefix = versionPrefix(location, id);
  for await (const key of listKeys(client, location, prefix)) {
    const path = key.slice(prefix.length);
    if (path === MANIFEST_PATH) continue;
    try {
      const answer = await client.send(new GetObjectCommand({ Bucket: location.bucket, Key: key }));
      yield {
        key,
        path,
        body: await answer.Body!.transformToByteArray(),
        httpMetadata: { contentType: answer.ContentType, contentEncoding: answer.ContentEncoding, cacheControl: answer.CacheControl },
        customMetadata: { ...answer.Metadata },
      };
    } catch (error) {
      throw storageFailure(error, location, `reading ${key}`, 'nothing was changed');
    }
  }
}
