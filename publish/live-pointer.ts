/**
 * `PREFIX/live.json`, the one object that says which version readers serve. It is written last:
 * until it changes, every reader keeps serving the version it names, whole.
 */
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { z } from 'zod';
import { UserError } from '../core/errors.ts';
import { describe, pointerKey, type Location } from './location.ts';
import { POINTER_CACHE_CONTROL, VERSION_ID_PATTERN } from '../tree/bucket.ts';
import { storageFailure } from './storage.ts';

const VersionIdSchema = z.string().regex(VERSION_ID_PATTERN);

export const LivePointerSchema = z
  .object({
    version: VersionIdSchema,
    /** Older versions, newest first: where `--rollback` goes. */
    previous: z.array(VersionIdSchema),
    publishedAt: z.iso.datetime(),
  })
  .strict();

export type LivePointer = z.infer<typeof LivePointerSchema>;

/** The pointer, or null when nothing was ever published under the prefix. */
export async function readPointer(client: S3Client, location: Location, abortSignal?: AbortSignal): Promise<LivePointer | null> {
  let text: string;
  try {
    const answer = await client.send(new GetObjectCommand({ Bucket: location.bucket, Key: pointerKey(location) }), { abortSignal });
    text = await answer.Body!.transformToString('utf8');
  } catch (error) {
    if ((error as { name?: string }).name === 'NoSuchKey') return null;
    throw storageFailure(error, location, `reading ${pointerKey(location)}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const result = LivePointerSchema.safeParse(parsed);
  if (!result.success) {
    throw new UserError(`${describe(location)}: ${pointerKey(location)} is not a pointer written by wallet-snapshot publish (${text.slice(0, 80)}); is --to the right prefix?`);
  }
  return result.data;
}

export async function writePointer(client: S3Client, location: Location, pointer: LivePointer, abortSignal?: AbortSignal): Promise<void> {
  try {
    await client.send(
      new PutObjectCommand({
        Bucket: location.bucket,
        Key: pointerKey(location),
        Body: `${JSON.stringify(LivePointerSchema.parse(pointer))}\n`,
        ContentType: 'application/json; charset=utf-8',
        CacheControl: POINTER_CACHE_CONTROL,
      }),
      { abortSignal },
    );
  } catch (error) {
    throw storageFailure(error, location, `writing ${pointerKey(location)}`);
  }
}
