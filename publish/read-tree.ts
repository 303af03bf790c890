/**
 * The files of a built tree in path order, what a night publishes, and the digest that names its
 * version.
 */
import crypto from 'node:crypto';
import fsp from 'node:fs/promises';
import { resolveInTree, type TreeFile } from './tree-file.ts';
import { listFoldersSync, type FolderListing } from './list-folders.ts';
import { listFoldersOnThread } from './tree-file-pool.ts';
import { UserError, messageOf } from '../core/errors.ts';
import { ADDRESS_DIR, META_FILE } from '../tree/layout.ts';
import { MANIFEST_DIR } from '../tree/manifest-files.ts';
import { NIGHT_DIR } from '../tree/night-summary.ts';
import { SnapshotMetaSchema, type SnapshotMeta } from '../schemas/meta.ts';
import { isPublished, STORAGE_FORMAT } from '../tree/bucket.ts';
import { manifestLine } from '../tree/manifest-line.ts';

export type { TreeFile } from './tree-file.ts';

/** The tree's `_snapshot/meta.json`: publishing a folder without one is refused. */
export async function readMeta(dir: string): Promise<SnapshotMeta> {
  let text: string;
  try {
    text = await fsp.readFile(resolveInTree(dir, META_FILE), 'utf8');
  } catch (error) {
    throw new UserError(
      `--dir ${dir} holds no snapshot tree: ${META_FILE} cannot be read (${messageOf(error)}); run wallet-snapshot build first`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UserError(`--dir ${dir}: ${META_FILE} is not JSON (${messageOf(error)}); build the tree again`);
  }
  const result = SnapshotMetaSchema.safeParse(parsed);
  if (!result.success) {
    throw new UserError(
      `--dir ${dir}: ${META_FILE} is not a snapshot's meta file (${result.error.issues[0]?.message}); build the tree again`,
    );
  }
  return result.data;
}

/**
 * Every file of the tree by its tree path, sorted, those to publish and those a static host reads
 * but the store does not (`isPublished`) apart. Listing only: publish reads each file's bytes
 * once, as it packs it (pack-shard.ts). `onTurn` is called as each group of folders is listed, and
 * may throw to stop.
 */
export async function listTreePaths(dir: string, onTurn: () => void): Promise<{ paths: string[]; unpublished: string[] }> {
  const paths: string[] = [];
  const unpublished: string[] = [];
  const take = (listing: FolderListing) => {
    if (listing.notRegular !== null)
      throw new UserError(`--dir ${dir}: ${listing.notRegular} is not a regular file; a built tree holds only files and folders`);
    for (const treePath of listing.files) (isPublished(treePath) ? paths : unpublished).push(treePath);
  };
  // The first levels here, breadth first, until there are folders enough to share among the threads.
  let folders = [''];
  while (folders.length > 0 && folders.length < FOLDERS_TO_SHARE) {
    const listing = listFoldersSync(dir, folders, false);
    take(listing);
    folders = listing.folders;
  }
  const groups: string[][] = [];
  for (let start = 0; start < folders.length; start += FOLDERS_A_TASK) groups.push(folders.slice(start, start + FOLDERS_A_TASK));
  await Promise.all(
    groups.map(async (group) => {
      const listing = await listFoldersOnThread(dir, group);
      onTurn();
      take(listing);
    }),
  );
  return { paths: paths.sort(), unpublished };
}

/**
 * Folders listed on the threads, a task's worth at a time: several readers at once keep the disk
 * busy where one waited on each folder in turn, a tree just built being mostly out of the page
 * cache (bench/LOG.md). A smaller tree, or its first levels, is listed on the main thread.
 */
const FOLDERS_TO_SHARE = 64;
const FOLDERS_A_TASK = 256;

/** The version's manifest: `sha256sum` lines, one per file in path order (`sha256sum -c` checks a tree folder against it). */
export function manifestText(files: readonly TreeFile[]): string {
  return files.map((file) => manifestLine(file.sha256, file.path)).join('');
}

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
export function shardedVersionIdOf(
  lastClosedDay: string,
  count: number,
  build: { now: string; inputs: string },
  files: readonly TreeFile[],
): string {
  const digest = crypto.createHash('sha256').update(`${STORAGE_FORMAT}\nshards ${count}\nbuild ${build.now} ${build.inputs}\n`);
  for (const file of files) if (isSharedFile(file.path)) digest.update(manifestLine(file.sha256, file.path));
  return `${lastClosedDay}-${digest.digest('hex').slice(0, 16)}`;
}

/** A file every shard of a build writes with the same bytes (not a wallet's, not a shard's own record or night summary). */
export function isSharedFile(treePath: string): boolean {
  return !treePath.startsWith(`${ADDRESS_DIR}/`) && !treePath.startsWith(`${MANIFEST_DIR}/`) && !treePath.startsWith(`${NIGHT_DIR}/`);
}
