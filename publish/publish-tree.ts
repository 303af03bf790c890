/**
 * `publish`: one night's tree into object storage, under a version prefix of its own, then the
 * pointer. Stages: read and hash the tree, name its version, plan each file against what is
 * stored (skip, copy from the live version, or upload), transfer, write the manifest, switch.
 * A daily document reaching back before the current month is stored in two parts (daily-parts.ts):
 * its closed months' blob is uploaded before the object that refers to it, unless it is stored.
 */
import fs from 'node:fs';
import { CopyObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import pLimit from 'p-limit';
import { UserError } from '../core/errors.ts';
import type { Progress } from '../core/progress.ts';
import { gzip } from './compress.ts';
import { restOf } from './daily-parts.ts';
import { readPointer, writePointer } from './live-pointer.ts';
import { blobKey, MANIFEST_PATH, objectKey, type Location } from './location.ts';
import { BLOB_CONTENT_TYPE, contentTypeOf, isCompressible, OBJECT_CACHE_CONTROL } from './object-headers.ts';
import { manifestText, readMeta, readTree, readTreeFile, sha256Hex, storedSize, versionIdOf, type TreeFile } from './read-tree.ts';
import { storageFailure, throwIfInterrupted } from './storage.ts';
import { blobsOf, readManifest, storedBlobs, storedPaths, writeManifest } from './version-store.ts';

export interface PublishOptions {
  dir: string;
  location: Location;
  client: S3Client;
  /** Requests in flight at most. */
  concurrency: number;
  progress: Progress;
  abortSignal?: AbortSignal;
}

export interface Transfer {
  objects: number;
  /** Uncompressed bytes of the objects (of a document in two parts, the part under the version). */
  rawBytes: number;
  /** Bytes sent in request bodies (uploads only). */
  sentBytes: number;
}

export interface PublishSummary {
  version: string;
  /** The version that was live before, if any. */
  replaced: string | null;
  /** The tree was live already: nothing was sent, the pointer was not touched. */
  alreadyLive: boolean;
  uploaded: Transfer;
  copied: Transfer;
  /** Stored already under the version (an interrupted publish of the same tree wrote them). */
  skipped: Transfer;
  /** The closed months' blobs this version's daily documents refer to. */
  blobs: {
    uploaded: Transfer;
    /** Stored already (by an earlier night, most nights): neither sent nor copied. */
    stored: Transfer;
  };
  seconds: number;
}

type Action = 'upload' | 'copy' | 'skip';

export async function publishTree(options: PublishOptions): Promise<PublishSummary> {
  const started = performance.now();
  const { client, location, progress, abortSignal } = options;
  // Read once through the real path: a build that swaps --out while this runs is noticed (the
  // sha256 of every uploaded file is checked again) instead of mixing two trees.
  const dir = fs.realpathSync(options.dir);
  const meta = await readMeta(dir);

  progress.start('hash the tree');
  const files = await readTree(dir, meta.lastClosedDay, (done, total) => {
    throwIfInterrupted(abortSignal, 'hashing the tree');
    progress.tick(done, total, 'files');
  });
  const manifest = manifestText(files);
  const version = versionIdOf(meta.lastClosedDay, manifest);

  progress.start('compare with the live version');
  const pointer = await readPointer(client, location, abortSignal);
  const summary: PublishSummary = {
    version,
    replaced: pointer?.version ?? null,
    alreadyLive: pointer?.version === version,
    uploaded: { objects: 0, rawBytes: 0, sentBytes: 0 },
    copied: { objects: 0, rawBytes: 0, sentBytes: 0 },
    skipped: { objects: 0, rawBytes: 0, sentBytes: 0 },
    blobs: { uploaded: { objects: 0, rawBytes: 0, sentBytes: 0 }, stored: { objects: 0, rawBytes: 0, sentBytes: 0 } },
    seconds: 0,
  };
  if (summary.alreadyLive) {
    for (const file of files) count(summary.skipped, file, 0);
    for (const blob of distinctBlobs(files)) add(summary.blobs.stored, blob.length, 0);
    progress.end();
    summary.seconds = (performance.now() - started) / 1000;
    return summary;
  }
  const stored = await storedPaths(client, location, version, abortSignal);
  const live = pointer ? await readManifest(client, location, pointer.version, abortSignal) : null;
  const copyable = live?.sameFormat ? live : null;
  const actionOf = (file: TreeFile): Action => {
    if (stored.has(file.path)) return 'skip';
    if (copyable?.files.get(file.path) !== file.sha256) return 'upload';
    // The same document split at another place (a month closed) is stored otherwise.
    const liveBlob = copyable.blobs.get(file.path);
    return liveBlob?.sha256 === file.blob?.sha256 && liveBlob?.at === file.blob?.at ? 'copy' : 'upload';
  };
  // The live version's blobs are stored (--keep removes only blobs no kept version refers to).
  // A rerun of an interrupted publish lists the blobs: another night's --keep may have removed
  // some that the interrupted run uploaded and its stored objects refer to.
  const knownBlobs = live?.sameFormat ? blobsOf(live) : new Set<string>();
  if (stored.size > 0) for (const blob of await storedBlobs(client, location, abortSignal)) knownBlobs.add(blob);
  const blobs = new BlobUploads(options, dir, knownBlobs, summary);

  progress.start(`publish version ${version}`);
  const limit = pLimit(options.concurrency);
  let done = 0;
  let failure: unknown = null;
  const transfer = async (file: TreeFile) => {
    if (failure !== null) return;
    try {
      throwIfInterrupted(abortSignal, 'publishing');
      const action = actionOf(file);
      // The blob first: an object under the version never refers to a blob not yet stored.
      if (file.blob) await blobs.ensure(file);
      if (action === 'skip') count(summary.skipped, file, 0);
      else if (action === 'copy') count(summary.copied, file, await copy(options, pointer!.version, version, file));
      else count(summary.uploaded, file, await upload(options, dir, version, file));
    } catch (error) {
      // The queued files return at once from here on (p-limit's clearQueue would leave their
      // promises pending forever).
      failure ??= error;
      return;
    }
    progress.tick(++done, files.length, 'objects');
  };
  await Promise.all(files.map((file) => limit(() => transfer(file))));
  if (failure !== null) throw failure;

  progress.start('switch the live version');
  if (!stored.has(MANIFEST_PATH)) {
    await writeManifest(client, location, version, manifest, abortSignal);
  }
  await writePointer(
    client,
    location,
    {
      version,
      previous: pointer ? [pointer.version, ...pointer.previous].filter((id) => id !== version) : [],
      publishedAt: new Date().toISOString(),
    },
    abortSignal,
  );
  progress.end();
  summary.seconds = (performance.now() - started) / 1000;
  return summary;
}

function count(transfer: Transfer, file: TreeFile, sentBytes: number): void {
  add(transfer, storedSize(file), sentBytes);
}

function add(transfer: Transfer, rawBytes: number, sentBytes: number): void {
  transfer.objects++;
  transfer.rawBytes += rawBytes;
  transfer.sentBytes += sentBytes;
}

function distinctBlobs(files: readonly TreeFile[]): { sha256: string; length: number }[] {
  const blobs = new Map<string, number>();
  for (const file of files) if (file.blob) blobs.set(file.blob.sha256, file.blob.length);
  return [...blobs].map(([sha256, length]) => ({ sha256, length }));
}

/**
 * The object's headers and metadata: the same whether uploaded or copied. A document in two
 * parts also names its blob and where the blob's bytes go, and the whole document's size (a
 * reader checks what it assembled against it); `sha256` is always the whole document's, so the
 * ETag does not depend on how it is stored.
 */
function objectHeaders(file: TreeFile) {
  return {
    ContentType: contentTypeOf(file.path),
    CacheControl: OBJECT_CACHE_CONTROL,
    ...(isCompressible(file.path) ? { ContentEncoding: 'gzip' } : {}),
    Metadata: {
      sha256: file.sha256,
      mtime: String(file.mtimeMs),
      ...(file.blob ? { blob: file.blob.sha256, 'blob-at': String(file.blob.at), size: String(file.size) } : {}),
    },
  };
}

/** A file's bytes, refused when they are not the bytes hashed at the start. */
async function verifiedBytes(options: PublishOptions, dir: string, file: TreeFile): Promise<Buffer> {
  const { bytes } = await readTreeFile(dir, file.path);
  if ((await sha256Hex(bytes)) !== file.sha256) {
    throw new UserError(`--dir ${options.dir}: ${file.path} changed while it was being published (a build replaced the tree?); publish again once the tree is complete`);
  }
  return bytes;
}

/**
 * Each blob the version needs, uploaded once (several documents may hold the same closed
 * months' bytes) unless it is stored already.
 */
class BlobUploads {
  private readonly pending = new Map<string, Promise<void>>();

  constructor(
    private readonly options: PublishOptions,
    private readonly dir: string,
    private readonly stored: Set<string>,
    private readonly summary: PublishSummary,
  ) {}

  ensure(file: TreeFile): Promise<void> {
    const blob = file.blob!;
    let done = this.pending.get(blob.sha256);
    if (!done) {
      if (this.stored.has(blob.sha256)) {
        add(this.summary.blobs.stored, blob.length, 0);
        done = Promise.resolve();
      } else {
        done = this.upload(file);
      }
      this.pending.set(blob.sha256, done);
    }
    return done;
  }

  private async upload(file: TreeFile): Promise<void> {
    const blob = file.blob!;
    const bytes = (await verifiedBytes(this.options, this.dir, file)).subarray(blob.at, blob.at + blob.length);
    const body = await gzip(bytes);
    const { location, client, abortSignal } = this.options;
    const key = blobKey(location, blob.sha256);
    try {
      await client.send(
        new PutObjectCommand({
          Bucket: location.bucket,
          Key: key,
          Body: body,
          ContentType: BLOB_CONTENT_TYPE,
          ContentEncoding: 'gzip',
          CacheControl: OBJECT_CACHE_CONTROL,
          Metadata: { sha256: blob.sha256, size: String(blob.length) },
        }),
        { abortSignal },
      );
    } catch (error) {
      throw storageFailure(error, location, `uploading ${key}`);
    }
    add(this.summary.blobs.uploaded, blob.length, body.length);
  }
}

async function upload(options: PublishOptions, dir: string, version: string, file: TreeFile): Promise<number> {
  const bytes = await verifiedBytes(options, dir, file);
  const stored = file.blob ? restOf(bytes, file.blob) : bytes;
  const body = isCompressible(file.path) ? await gzip(stored) : stored;
  const key = objectKey(options.location, version, file.path);
  try {
    await options.client.send(new PutObjectCommand({ Bucket: options.location.bucket, Key: key, Body: body, ...objectHeaders(file) }), { abortSignal: options.abortSignal });
  } catch (error) {
    throw storageFailure(error, options.location, `uploading ${key}`);
  }
  return body.length;
}

/**
 * A server-side copy from the live version. The metadata is replaced rather than copied so that
 * `mtime` is this tree's, as a reader of the tree folder would see it.
 */
async function copy(options: PublishOptions, liveVersion: string, version: string, file: TreeFile): Promise<number> {
  const source = objectKey(options.location, liveVersion, file.path);
  const key = objectKey(options.location, version, file.path);
  try {
    await options.client.send(
      new CopyObjectCommand({
        Bucket: options.location.bucket,
        Key: key,
        CopySource: `${options.location.bucket}/${source.split('/').map(encodeURIComponent).join('/')}`,
        MetadataDirective: 'REPLACE',
        ...objectHeaders(file),
      }),
      { abortSignal: options.abortSignal },
    );
  } catch (error) {
    throw storageFailure(error, options.location, `copying ${source} to ${key}`);
  }
  return 0;
}
