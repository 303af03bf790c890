/**
 * Sending a tree's files into one version prefix: each file planned against what is stored
 * (skip what this version holds already, copy server-side what the live version holds with the
 * same bytes, upload the rest), the closed months' blob of a daily document uploaded before the
 * object that refers to it. Both ways into a version use it: a whole tree's publish and a shard's
 * stage.
 */
import { CopyObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import pLimit from 'p-limit';
import { UserError } from '../core/errors.ts';
import type { Progress } from '../core/progress.ts';
import { objectKey, underPrefix, type Location } from './location.ts';
import { fileMetadata, s3Fields, type StoredObject } from './stored-object.ts';
import { storedSize, type ParsedManifest, type TreeFile } from './read-tree.ts';
import { storedParts } from './tree-file-pool.ts';
import type { StoredParts } from './tree-file-task.ts';
import { perObjectSender, storageFailure, throwIfInterrupted } from './storage.ts';

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

/** What was sent, copied and skipped into a version. */
export interface TransferSummary {
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
}


type Action = 'upload' | 'copy' | 'skip';

/** What the transfer of one version's files works with: the options and the per-object sender. */
interface Transferring extends PublishOptions {
  send: ReturnType<typeof perObjectSender>;
}

export function emptyTransfers(): TransferSummary {
  const none = (): Transfer => ({ objects: 0, rawBytes: 0, sentBytes: 0 });
  return { uploaded: none(), copied: none(), skipped: none(), blobs: { uploaded: none(), stored: none() } };
}

export interface VersionPlan {
  version: string;
  /** Tree paths stored under the version already (an interrupted run wrote them). */
  stored: Set<string>;
  /** The live version and its manifest, when its objects may be copied. */
  live: { version: string; manifest: ParsedManifest } | null;
  /** Blobs known to be stored. */
  knownBlobs: Set<string>;
}

/** Every file into the version; stops at the first failure, with the files in flight finished. */
export async function transferFiles(publishing: PublishOptions, dir: string, files: readonly TreeFile[], plan: VersionPlan, summary: TransferSummary): Promise<void> {
  const options: Transferring = { ...publishing, send: perObjectSender(publishing.client, publishing.abortSignal) };
  const { progress, abortSignal } = options;
  const { version, stored, live } = plan;
  const actionOf = (file: TreeFile): Action => {
    if (stored.has(file.path)) return 'skip';
    if (live?.manifest.files.get(file.path) !== file.sha256) return 'upload';
    // The same document split at another place (a month closed) is stored otherwise.
    const liveBlob = live.manifest.blobs.get(file.path);
    return liveBlob?.sha256 === file.blob?.sha256 && liveBlob?.at === file.blob?.at ? 'copy' : 'upload';
  };
  const blobs = new BlobUploads(options, dir, plan.knownBlobs, summary);
  const limit = pLimit(options.concurrency);
  let done = 0;
  let failure: unknown = null;
  const transfer = async (file: TreeFile) => {
    if (failure !== null) return;
    try {
      throwIfInterrupted(abortSignal, 'publishing');
      const action = actionOf(file);
      // The blob first: an object under the version never refers to a blob not yet stored.
      const made = file.blob ? await blobs.ensure(file, version, action === 'upload') : null;
      if (action === 'skip') count(summary.skipped, file, 0);
      else if (action === 'copy') count(summary.copied, file, await copy(options, live!.version, version, file));
      else count(summary.uploaded, file, await upload(options, dir, version, file, made));
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
}

export function count(transfer: Transfer, file: TreeFile, sentBytes: number): void {
  add(transfer, storedSize(file), sentBytes);
}

export function add(transfer: Transfer, rawBytes: number, sentBytes: number): void {
  transfer.objects++;
  transfer.rawBytes += rawBytes;
  transfer.sentBytes += sentBytes;
}

export function distinctBlobs(files: readonly TreeFile[]): { sha256: string; length: number }[] {
  const blobs = new Map<string, number>();
  for (const file of files) if (file.blob) blobs.set(file.blob.sha256, file.blob.length);
  return [...blobs].map(([sha256, length]) => ({ sha256, length }));
}

/**
 * Each blob the version needs, uploaded once (several documents may hold the same closed
 * months' bytes) unless it is stored already.
 */
class BlobUploads {
  private readonly pending = new Map<string, Promise<void>>();

  constructor(
    private readonly options: Transferring,
    private readonly dir: string,
    private readonly stored: Set<string>,
    private readonly summary: TransferSummary,
  ) {}

  /**
   * Waits until the file's blob is stored. The call that uploads it makes it from the same read as
   * the file's own object, which it returns when `withObject` (else null).
   */
  async ensure(file: TreeFile, version: string, withObject: boolean): Promise<StoredObject | null> {
    const blob = file.blob!;
    const waiting = this.pending.get(blob.sha256);
    if (waiting) {
      await waiting;
      return null;
    }
    if (this.stored.has(blob.sha256)) {
      add(this.summary.blobs.stored, blob.length, 0);
      this.pending.set(blob.sha256, Promise.resolve());
      return null;
    }
    const uploading = this.upload(file, version, withObject);
    const done = uploading.then(() => undefined);
    // Awaited by the files that share the blob, if any: its failure is this call's to report.
    done.catch(() => {});
    this.pending.set(blob.sha256, done);
    return uploading;
  }

  private async upload(file: TreeFile, version: string, withObject: boolean): Promise<StoredObject | null> {
    const parts = await storedPartsOrRefuse(this.options, this.dir, version, file, { object: withObject, blob: true });
    await put(this.options, parts.blob!);
    add(this.summary.blobs.uploaded, file.blob!.length, parts.blob!.body.length);
    return parts.object ?? null;
  }
}

/** `made`: the file's object, when the upload of its blob made it already. */
async function upload(options: Transferring, dir: string, version: string, file: TreeFile, made: StoredObject | null): Promise<number> {
  const object = made ?? (await storedPartsOrRefuse(options, dir, version, file, { object: true, blob: false })).object!;
  await put(options, object);
  return object.body.length;
}

/** What `want` asks of a file, from one read; refused when the file is no longer the one hashed at the start. */
async function storedPartsOrRefuse(options: PublishOptions, dir: string, version: string, file: TreeFile, want: { object: boolean; blob: boolean }): Promise<StoredParts> {
  const parts = await storedParts(dir, version, file, want);
  if (parts === null) {
    throw new UserError(`--dir ${options.dir}: ${file.path} changed while it was being published (a build replaced the tree?); publish again once the tree is complete`);
  }
  return parts;
}

/** One object under the bucket's prefix. */
async function put(options: Transferring, object: StoredObject): Promise<void> {
  const key = underPrefix(options.location, object.key);
  try {
    await options.send(new PutObjectCommand({ Bucket: options.location.bucket, Key: key, Body: object.body, ...s3Fields(object) }));
  } catch (error) {
    throw storageFailure(error, options.location, `uploading ${key}`);
  }
}

/**
 * A server-side copy from the live version. The metadata is replaced rather than copied so that
 * `mtime` is this tree's, as a reader of the tree folder would see it.
 */
async function copy(options: Transferring, liveVersion: string, version: string, file: TreeFile): Promise<number> {
  const source = objectKey(options.location, liveVersion, file.path);
  const key = objectKey(options.location, version, file.path);
  try {
    await options.send(
      new CopyObjectCommand({
        Bucket: options.location.bucket,
        Key: key,
        CopySource: `${options.location.bucket}/${source.split('/').map(encodeURIComponent).join('/')}`,
        MetadataDirective: 'REPLACE',
        ...s3Fields(fileMetadata(file)),
      }),
    );
  } catch (error) {
    throw storageFailure(error, options.location, `copying ${source} to ${key}`);
  }
  return 0;
}
