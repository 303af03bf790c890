/**
 * The files of a built tree with the sha256 of each, in path order: what a night publishes, and
 * the digest that names its version.
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import pLimit from 'p-limit';
import { resolveInTree, type TreeFile } from './tree-file.ts';
import { describeFiles, TREE_FILE_THREADS } from './tree-file-pool.ts';
import { UserError, messageOf } from '../core/errors.ts';
import { ADDRESS_DIR, META_FILE } from '../tree/layout.ts';
import { MANIFEST_DIR } from '../tree/manifest-files.ts';
import { NIGHT_DIR } from '../tree/night-summary.ts';
import { SnapshotMetaSchema, type SnapshotMeta } from '../schemas/meta.ts';
import { isPublished } from '../tree/bucket.ts';

export type { BlobPart, TreeFile } from './tree-file.ts';
export { storedSize } from './tree-file.ts';

/** Files per task of the tree-file threads: enough that handing a task over costs little. */
const DESCRIBE_BATCH = 64;
/** Tasks handed to the threads at once: each thread has the next one waiting, and an interruption stops the rest. */
const DESCRIBE_TASKS_IN_FLIGHT = 2 * TREE_FILE_THREADS;

/** The tree's `_snapshot/meta.json`: publishing a folder without one is refused. */
export async function readMeta(dir: string): Promise<SnapshotMeta> {
  let text: string;
  try {
    text = await fs.readFile(resolveInTree(dir, META_FILE), 'utf8');
  } catch (error) {
    throw new UserError(`--dir ${dir} holds no snapshot tree: ${META_FILE} cannot be read (${messageOf(error)}); run wallet-snapshot build first`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UserError(`--dir ${dir}: ${META_FILE} is not JSON (${messageOf(error)}); build the tree again`);
  }
  const result = SnapshotMetaSchema.safeParse(parsed);
  if (!result.success) {
    throw new UserError(`--dir ${dir}: ${META_FILE} is not a snapshot's meta file (${result.error.issues[0]?.message}); build the tree again`);
  }
  return result.data;
}

/**
 * Every file to publish, sorted by path, each hashed, and each daily document reaching back
 * before the month of `lastClosedDay` with its closed months' span hashed too (on the tree-file
 * threads). `onFile` counts progress, and may throw to stop.
 */
export async function readTree(dir: string, lastClosedDay: string, onFile: (done: number, total: number) => void): Promise<{ files: TreeFile[]; unpublished: string[] }> {
  const paths: string[] = [];
  const unpublished: string[] = [];
  for (const entry of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    const treePath = path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/');
    if (entry.isDirectory()) continue;
    if (!entry.isFile()) throw new UserError(`--dir ${dir}: ${treePath} is not a regular file; a built tree holds only files and folders`);
    (isPublished(treePath) ? paths : unpublished).push(treePath);
  }
  paths.sort();
  const batches: string[][] = [];
  for (let start = 0; start < paths.length; start += DESCRIBE_BATCH) batches.push(paths.slice(start, start + DESCRIBE_BATCH));
  const limit = pLimit(DESCRIBE_TASKS_IN_FLIGHT);
  let done = 0;
  let stopped = false;
  const described = await Promise.all(
    batches.map((batch) =>
      limit(async () => {
        if (stopped) return [];
        try {
          const files = await describeFiles(dir, batch, lastClosedDay);
          done += batch.length;
          onFile(done, paths.length);
          return files;
        } catch (error) {
          // The batches still queued return at once (an interruption, or a file that cannot be read).
          stopped = true;
          throw error;
        }
      }),
    ),
  );
  return { files: described.flat(), unpublished };
}

/**
 * The version's manifest: `sha256sum` lines, one per file in path order (`sha256sum -c` checks a
 * tree folder against it), then one line `blob <sha256> <offset> <tree path>` per document
 * stored in two parts.
 */
export function manifestText(files: readonly TreeFile[]): string {
  const sums = files.map((file) => `${file.sha256}  ${file.path}\n`);
  const blobs = files.filter((file) => file.blob).map((file) => `blob ${file.blob!.sha256} ${file.blob!.at} ${file.path}\n`);
  return sums.join('') + blobs.join('');
}

export interface ParsedManifest {
  /** tree path -> sha256 of the whole file. */
  files: Map<string, string>;
  /** tree path -> its blob and the offset of the blob's bytes, for documents stored in two parts. */
  blobs: Map<string, { sha256: string; at: number }>;
}

export function parseManifest(text: string): ParsedManifest {
  const result: ParsedManifest = { files: new Map(), blobs: new Map() };
  for (const line of text.split('\n')) {
    const sum = /^([0-9a-f]{64}) {2}(.+)$/.exec(line);
    if (sum) result.files.set(sum[2]!, sum[1]!);
    const blob = /^blob ([0-9a-f]{64}) (\d+) (.+)$/.exec(line);
    if (blob) result.blobs.set(blob[3]!, { sha256: blob[1]!, at: Number(blob[2]) });
  }
  return result;
}

/**
 * What publishes the same bytes the same way. Part of every version's digest, so that a change
 * of how objects are stored (their headers, their encoding) never resumes into, or copies from,
 * a version stored the old way.
 */
export const STORAGE_FORMAT = 'wallet-snapshot publish 2: gzip level 6 for text, headers by extension, closed months of daily documents in shared blobs';

/** `<last closed day>-<16 hex digits of the digest of the format and the manifest>`. */
export function versionIdOf(lastClosedDay: string, manifest: string): string {
  const digest = crypto.createHash('sha256').update(`${STORAGE_FORMAT}\n`).update(manifest).digest('hex');
  return `${lastClosedDay}-${digest.slice(0, 16)}`;
}

/**
 * The version every shard of one build stages into, derived from what the shards share and
 * nothing else: the shard count, the build (its instant and the inputs' fingerprint) and the
 * files every shard writes alike (leaderboards, the seasons index, meta, the explorer). The
 * shards never talk to each other, and two builds differ in their instant or their inputs.
 */
export function shardedVersionIdOf(lastClosedDay: string, count: number, build: { now: string; inputs: string }, files: readonly TreeFile[]): string {
  const digest = crypto.createHash('sha256').update(`${STORAGE_FORMAT}\nshards ${count}\nbuild ${build.now} ${build.inputs}\n`);
  for (const file of files) if (isSharedFile(file.path)) digest.update(`${file.sha256}  ${file.path}\n`);
  return `${lastClosedDay}-${digest.digest('hex').slice(0, 16)}`;
}

/** A file every shard of a build writes with the same bytes (not a wallet's, not a shard's own record or night summary). */
export function isSharedFile(treePath: string): boolean {
  return !treePath.startsWith(`${ADDRESS_DIR}/`) && !treePath.startsWith(`${MANIFEST_DIR}/`) && !treePath.startsWith(`${NIGHT_DIR}/`);
}
