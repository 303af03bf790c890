/**
 * `publish`: one night's tree into object storage, under a version prefix of its own, then the
 * pointer. Stages: read and hash the tree, name its version, plan each file against what is
 * stored (skip, copy from the live version, or upload), transfer, write the manifest, switch.
 */
import fs from 'node:fs';
import { CopyObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import pLimit from 'p-limit';
import { UserError } from '../build/errors.ts';
import type { Progress } from '../build/progress.ts';
import { gzip } from './compress.ts';
import { readPointer, writePointer } from './live-pointer.ts';
import { MANIFEST_PATH, objectKey, type Location } from './location.ts';
import { contentTypeOf, isCompressible, OBJECT_CACHE_CONTROL } from './object-headers.ts';
import { manifestText, readMeta, readTree, readTreeFile, sha256Hex, versionIdOf, type TreeFile } from './read-tree.ts';
import { storageFailure, throwIfInterrupted } from './storage.ts';
import { readManifest, storedPaths, writeManifest } from './version-store.ts';

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
  /** Uncompressed bytes of the files. */
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
  const files = await readTree(dir, (done, total) => {
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
    seconds: 0,
  };
  if (summary.alreadyLive) {
    for (const file of files) count(summary.skipped, file, 0);
    progress.end();
    summary.seconds = (performance.now() - started) / 1000;
    return summary;
  }
  const stored = await storedPaths(client, location, version, abortSignal);
  const live = pointer ? await readManifest(client, location, pointer.version, abortSignal) : null;
  const copyable = live?.sameFormat ? live.files : new Map<string, string>();
  const actionOf = (file: TreeFile): Action => {
    if (stored.has(file.path)) return 'skip';
    return copyable.get(file.path) === file.sha256 ? 'copy' : 'upload';
  };

  progress.start(`publish version ${version}`);
  const limit = pLimit(options.concurrency);
  let done = 0;
  let failure: unknown = null;
  const transfer = async (file: TreeFile) => {
    if (failure !== null) return;
    try {
      throwIfInterrupted(abortSignal, 'publishing');
      const action = actionOf(file);
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
  transfer.objects++;
  transfer.rawBytes += file.size;
  transfer.sentBytes += sentBytes;
}

/** The object's headers and metadata: the same whether uploaded or copied. */
function objectHeaders(file: TreeFile) {
  return {
    ContentType: contentTypeOf(file.path),
    CacheControl: OBJECT_CACHE_CONTROL,
    ...(isCompressible(file.path) ? { ContentEncoding: 'gzip' } : {}),
    Metadata: { sha256: file.sha256, mtime: String(file.mtimeMs) },
  };
}

async function upload(options: PublishOptions, dir: string, version: string, file: TreeFile): Promise<number> {
  const { bytes } = await readTreeFile(dir, file.path);
  if ((await sha256Hex(bytes)) !== file.sha256) {
    throw new UserError(`--dir ${options.dir}: ${file.path} changed while it was being published (a build replaced the tree?); publish again once the tree is complete`);
  }
  const body = isCompressible(file.path) ? await gzip(bytes) : bytes;
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
