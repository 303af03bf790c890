/**
 * `PREFIX/live.json` in object storage (its format: tree/live-pointer.ts). It is written last:
 * until it changes, every reader keeps serving the version it names, whole.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { UserError } from '../core/errors.ts';
import { describe, pointerKey, type Location } from './location.ts';
import { POINTER_CACHE_CONTROL } from '../tree/bucket.ts';
import { parsePointer, pointerText, type LivePointer } from '../tree/live-pointer.ts';
import { readObjectText, writeObject } from './storage.ts';

export type { LivePointer } from '../tree/live-pointer.ts';

/** The pointer, or null when nothing was ever published under the prefix. */
export async function readPointer(client: S3Client, location: Location, abortSignal?: AbortSignal): Promise<LivePointer | null> {
  const text = await readObjectText(client, location, pointerKey(location), abortSignal);
  if (text === null) return null;
  const pointer = parsePointer(text);
  if (!pointer) {
    throw new UserError(
      `${describe(location)}: ${pointerKey(location)} is not a pointer written by this release of wallet-snapshot publish (${text.slice(0, 80)}); ` +
        'is --to the right prefix? A prefix published by a release before packed versions is published again into a new prefix',
    );
  }
  return pointer;
}

/**
 * The pointer written. When every attempt failed, the pointer is read back before giving up: an
 * attempt whose answer was lost may have been stored, and a command that moved the pointer must
 * not say it did not (a `--rollback` run again would go back one version further). The text is
 * unique to this write (its `publishedAt`), so finding it means this write is live.
 */
export async function writePointer(client: S3Client, location: Location, pointer: LivePointer, abortSignal?: AbortSignal): Promise<void> {
  const text = pointerText(pointer);
  try {
    await writeObject(
      client,
      location,
      pointerKey(location),
      { body: text, contentType: 'application/json; charset=utf-8', cacheControl: POINTER_CACHE_CONTROL },
      abortSignal,
    );
  } catch (failure) {
    if (abortSignal?.aborted) throw failure;
    const stored = await readObjectText(client, location, pointerKey(location), abortSignal).catch(() => null);
    if (stored !== text) throw failure;
  }
}
