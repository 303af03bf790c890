/**
 * The S3 client every publish step uses, and what its failures mean to the user.
 *
 * Retries are the SDK's own standard strategy: throttling (503 SlowDown, 429) and transient
 * failures (500/502/503/504, connection reset or refused, timeouts) are retried with exponential
 * backoff and full jitter (from 500 ms for throttling, 100 ms otherwise, at most 20 s), within a
 * retry quota. Its adaptive mode is not used: it slows every request after a single throttle
 * (figures in bench/LOG.md), so the bounded concurrency is the only rate limit.
 *
 * The SDK's retries end with the answer's headers: a body cut short or stalled after them fails
 * the caller's read of the stream, outside any retry. Every object read here goes through
 * `readObject`, which reads the body whole and retries the request as a whole (with the same
 * backoff) when the body fails or is shorter than its Content-Length. A connection that sends and
 * receives nothing for the stall timeout is abandoned (the SDK's socket timeout): a retry on a
 * fresh connection, rather than a night waiting on a store that will never answer.
 */
import { GetObjectCommand, paginateListObjectsV2, PutObjectCommand, S3Client, type GetObjectCommandOutput } from '@aws-sdk/client-s3';
import { EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_STORAGE, UserError, messageOf } from '../core/errors.ts';
import { describe, type Location } from './location.ts';

export interface StorageOptions {
  /** An S3-compatible endpoint (R2, MinIO, a local server); Amazon S3 when absent. */
  endpoint?: string;
  /** Attempts per request, the first included. */
  maxAttempts: number;
  /** Requests in flight at most (the HTTP agent's sockets). */
  concurrency: number;
  /** Milliseconds a connection may stay silent (nothing sent, nothing received) before the request is abandoned and retried. */
  stallTimeoutMs?: number;
}

/** A stall longer than this is taken for a dead connection: a 64 MiB archive's PUT is answered within a few seconds of its last byte. */
const DEFAULT_STALL_TIMEOUT_MS = 30_000;

export async function createStorageClient(options: StorageOptions): Promise<S3Client> {
  // The pinned SDK supports Node 20; its warning is about releases after January 2027, and it
  // would otherwise open every nightly log.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  return new S3Client({
    region: await regionOf(),
    ...(options.endpoint ? { endpoint: options.endpoint, forcePathStyle: true } : {}),
    maxAttempts: options.maxAttempts,
    retryMode: 'standard',
    // Since 3.729 the SDK sends CRC32 checksums on every upload and validates them on every
    // download by default; R2, MinIO releases before 2025 and other S3-compatible servers reject
    // or mishandle those headers. Only operations that require a checksum (DeleteObjects) send one.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: {
      connectionTimeout: 10_000,
      // Inactivity, not a bound on the whole request (an archive's upload takes as long as the link needs);
      // it also covers the body after the headers, which fails the caller's read (readObject retries it).
      socketTimeout: options.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS,
      httpAgent: { keepAlive: true, maxSockets: options.concurrency },
      httpsAgent: { keepAlive: true, maxSockets: options.concurrency },
    },
  });
}

/**
 * AWS_REGION, then AWS_DEFAULT_REGION (which the JavaScript SDK alone does not read), then the
 * profile's region; `auto` without any, which is what R2 expects.
 */
async function regionOf(): Promise<string> {
  const fromEnvironment = process.env.AWS_REGION || process.env.AWS_DEFAULT_REGION;
  if (fromEnvironment) return fromEnvironment;
  const probe = new S3Client({});
  try {
    return await probe.config.region();
  } catch {
    return 'auto';
  } finally {
    probe.destroy();
  }
}

/** Errors that no retry fixes: the user's credentials, bucket or endpoint are wrong. */
const CONFIGURATION_ERRORS = new Set([
  'AccessDenied',
  'AllAccessDisabled',
  'InvalidAccessKeyId',
  'InvalidBucketName',
  'InvalidToken',
  'ExpiredToken',
  'NoSuchBucket',
  'PermanentRedirect',
  'AuthorizationHeaderMalformed',
  'SignatureDoesNotMatch',
  'CredentialsProviderError',
]);

const RESUMABLE = 'the live version was left as it was, and running the same publish again resumes where this one stopped';

/** A failed storage call as a message naming what was being done, with the exit status it deserves. */
export function storageFailure(error: unknown, location: Location, doing: string, aftermath = RESUMABLE): UserError {
  if (error instanceof UserError) return error;
  const name = (error as { name?: string } | null)?.name ?? '';
  const status = (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
  const attempts = (error as { $metadata?: { attempts?: number } } | null)?.$metadata?.attempts;
  const what = `${name && name !== 'Error' ? `${name}: ` : ''}${wordsOf(error)}${status ? ` (HTTP ${status})` : ''}`;
  if (name === 'AbortError') return new UserError(`interrupted while ${doing}; ${aftermath}`, EXIT_INTERRUPTED, { cause: error });
  if (CONFIGURATION_ERRORS.has(name) || status === 401 || status === 403) {
    return new UserError(
      `${describe(location)}: ${doing} was refused: ${what}; check the credentials (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE), ` +
        'AWS_REGION, the bucket name and --endpoint',
      EXIT_BAD_INPUT,
      { cause: error },
    );
  }
  return new UserError(
    `${describe(location)}: ${doing} failed${attempts ? ` after ${attempts} attempts` : ''}: ${what}; ${aftermath}`,
    EXIT_STORAGE,
    { cause: error },
  );
}

/** An error's first line, Node's bare "aborted" (an answer whose connection closed before its end) said in full. */
function wordsOf(error: unknown): string {
  const message = messageOf(error).split('\n')[0]!;
  return message === 'aborted' ? 'the connection closed before the whole answer arrived (aborted)' : message;
}

/** Stops local work (reading, hashing) once a signal asked to stop. */
export function throwIfInterrupted(abortSignal: AbortSignal | undefined, doing: string): void {
  if (abortSignal?.aborted) throw new UserError(`interrupted while ${doing}; ${RESUMABLE}`, EXIT_INTERRUPTED);
}

/** What an object carries beside its bytes. */
export interface WrittenObject {
  body: string | Uint8Array;
  contentType: string;
  cacheControl: string;
  metadata?: Record<string, string>;
}

/**
 * The one way publish writes an object: one `PUT` (retried by the client's strategy), its failure
 * the store's error naming the key (exit 5, resumable).
 */
export async function writeObject(
  client: S3Client,
  location: Location,
  key: string,
  object: WrittenObject,
  abortSignal?: AbortSignal,
  doing = `writing ${key}`,
): Promise<void> {
  try {
    await client.send(
      new PutObjectCommand({
        Bucket: location.bucket,
        Key: key,
        Body: object.body,
        ContentType: object.contentType,
        CacheControl: object.cacheControl,
        ...(object.metadata ? { Metadata: object.metadata } : {}),
      }),
      { abortSignal },
    );
  } catch (error) {
    throw storageFailure(error, location, doing);
  }
}

/** An object's text, or null when the bucket has no object at `key`; any other failure is the store's. */
export async function readObjectText(client: S3Client, location: Location, key: string, abortSignal?: AbortSignal): Promise<string | null> {
  const object = await readObject(client, location, key, { abortSignal });
  return object === null ? null : Buffer.from(object.bytes.buffer, object.bytes.byteOffset, object.bytes.byteLength).toString('utf8');
}

export interface ReadOptions {
  /** Bytes from `offset`, `length` of them (a range read); the whole object without. */
  range?: { offset: number; length: number };
  abortSignal?: AbortSignal;
  /** What the failure leaves behind, for the message (storageFailure's `aftermath`). */
  aftermath?: string;
}

export interface ReadObject {
  bytes: Uint8Array;
  metadata: Record<string, string>;
  contentType: string | undefined;
  /** The object's whole size (a range read's Content-Range total, else its length). */
  size: number;
}

/** Backoff between whole-request retries of a read whose body failed: the SDK's own for transient errors. */
const BODY_RETRY_BASE_MS = 100;
const BODY_RETRY_MAX_MS = 20_000;

/**
 * An object's bytes read whole (or a range of them), or null when there is no object at `key`.
 * A body that fails midway (the connection reset or stalled) or ends short of its Content-Length
 * is read again by a new request, with backoff, up to the client's attempts.
 */
export async function readObject(client: S3Client, location: Location, key: string, options: ReadOptions = {}): Promise<ReadObject | null> {
  const { range, abortSignal } = options;
  const attempts = await client.config.maxAttempts();
  const Range = range ? `bytes=${range.offset}-${range.offset + range.length - 1}` : undefined;
  for (let attempt = 1; ; attempt++) {
    let answer: GetObjectCommandOutput;
    try {
      answer = await client.send(new GetObjectCommand({ Bucket: location.bucket, Key: key, Range }), { abortSignal });
    } catch (error) {
      if ((error as { name?: string }).name === 'NoSuchKey') return null;
      throw storageFailure(error, location, `reading ${key}`, options.aftermath);
    }
    try {
      const bytes = await answer.Body!.transformToByteArray();
      if (answer.ContentLength !== undefined && bytes.length !== answer.ContentLength) {
        throw Object.assign(new Error(`the body ended after ${bytes.length} of its ${answer.ContentLength} bytes`), {
          name: 'TruncatedBody',
        });
      }
      const total = /\/(\d+)$/.exec(answer.ContentRange ?? '')?.[1];
      return { bytes, metadata: { ...answer.Metadata }, contentType: answer.ContentType, size: total ? Number(total) : bytes.length };
    } catch (error) {
      if (abortSignal?.aborted || attempt >= attempts) {
        const name = (error as { name?: string } | null)?.name ?? 'Error';
        const failure = Object.assign(new Error(`the answer's body failed after its headers: ${wordsOf(error)}`, { cause: error }), {
          name,
          $metadata: { attempts: attempt },
        });
        throw storageFailure(failure, location, `reading ${key}`, options.aftermath);
      }
      const delay = Math.random() * Math.min(BODY_RETRY_MAX_MS, BODY_RETRY_BASE_MS * 2 ** attempt);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/** Every object under `prefix` with its size and ETag (for an object sent in one request, the MD5 of its bytes), through the SDK's paginator. */
export async function* listObjects(
  client: S3Client,
  location: Location,
  prefix: string,
  abortSignal?: AbortSignal,
): AsyncGenerator<{ key: string; size: number; etag: string }> {
  try {
    // The paginator hands its last argument to each request's send: the signal stops a page in flight.
    for await (const page of paginateListObjectsV2({ client }, { Bucket: location.bucket, Prefix: prefix }, { abortSignal })) {
      for (const object of page.Contents ?? [])
        if (object.Key) yield { key: object.Key, size: object.Size ?? 0, etag: (object.ETag ?? '').replaceAll('"', '') };
    }
  } catch (error) {
    throw storageFailure(error, location, `listing ${prefix}`);
  }
}
