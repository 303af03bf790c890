/**
 * The S3 client every publish step uses, and what its failures mean to the user.
 *
 * Retries are the SDK's own standard strategy: throttling (503 SlowDown, 429) and transient
 * failures (500/502/503/504, connection reset or refused, timeouts) are retried with exponential
 * backoff and full jitter (from 500 ms for throttling, 100 ms otherwise, at most 20 s), within a
 * retry quota. Its adaptive mode is not used: it slows every request after a single throttle
 * (figures in bench/LOG.md), so the bounded concurrency is the only rate limit.
 */
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_STORAGE, UserError, messageOf } from '../core/errors.ts';
import { describe, type Location } from './location.ts';

export interface StorageOptions {
  /** An S3-compatible endpoint (R2, MinIO, a local server); Amazon S3 when absent. */
  endpoint?: string;
  /** Attempts per request, the first included. */
  maxAttempts: number;
  /** Requests in flight at most (the HTTP agent's sockets). */
  concurrency: number;
}

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
      requestTimeout: 120_000,
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
  const what = `${name && name !== 'Error' ? `${name}: ` : ''}${messageOf(error).split('\n')[0]}${status ? ` (HTTP ${status})` : ''}`;
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

/** Stops local work (reading, hashing) once a signal asked to stop. */
export function throwIfInterrupted(abortSignal: AbortSignal | undefined, doing: string): void {
  if (abortSignal?.aborted) throw new UserError(`interrupted while ${doing}; ${RESUMABLE}`, EXIT_INTERRUPTED);
}

/** An object's text, or null when the bucket has no object at `key`; any other failure is the store's. */
export async function readObjectText(client: S3Client, location: Location, key: string, abortSignal?: AbortSignal): Promise<string | null> {
  try {
    const answer = await client.send(new GetObjectCommand({ Bucket: location.bucket, Key: key }), { abortSignal });
    return await answer.Body!.transformToString('utf8');
  } catch (error) {
    if ((error as { name?: string }).name === 'NoSuchKey') return null;
    throw storageFailure(error, location, `reading ${key}`);
  }
}
