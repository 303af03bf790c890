/**
 * Reads a published version back, object by object, as stored (its archives and indexes, not
 * publish's own records under `_publish/`), with the pointer that makes it live: for tools that
 * load it into another store, e.g. `serve --runtime workerd --from` into its Miniflare R2 bucket.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { EXIT_STORAGE, UserError } from '../core/errors.ts';
import { readPointer, type LivePointer } from './live-pointer.ts';
import { describe, versionPrefix, type Location } from './location.ts';
import { PUBLISH_FOLDER } from '../tree/bucket.ts';
import { readObject } from './storage.ts';
import { listKeys } from './version-store.ts';

export interface PublishedObject {
  /** The object's key in the bucket, under the location's prefix. */
  key: string;
  /** Its key in the layout of tree/bucket.ts (without the location's prefix). */
  layoutKey: string;
  body: Uint8Array;
}

/** The live pointer (null: nothing is published) and the objects of the version it names. */
export async function readLiveVersion(
  client: S3Client,
  location: Location,
): Promise<{ pointer: LivePointer; objects: AsyncGenerator<PublishedObject> }> {
  const pointer = await readPointer(client, location);
  if (!pointer) throw new UserError(`nothing is published at ${describe(location)} (no live.json)`);
  return { pointer, objects: readVersionObjects(client, location, pointer.version) };
}

async function* readVersionObjects(client: S3Client, location: Location, version: string): AsyncGenerator<PublishedObject> {
  const prefix = versionPrefix(location, version);
  const layoutStart = location.prefix ? location.prefix.length + 1 : 0;
  for await (const key of listKeys(client, location, prefix)) {
    if (key.slice(prefix.length).startsWith(`${PUBLISH_FOLDER}/`)) continue;
    const object = await readObject(client, location, key, { aftermath: 'nothing was changed' });
    if (object === null)
      throw new UserError(
        `${describe(location)}: ${key} was removed while it was read (a --keep at the same time?); nothing was changed`,
        EXIT_STORAGE,
      );
    yield { key, layoutKey: key.slice(layoutStart), body: object.bytes };
  }
}
