/**
 * A tree as publish takes it: listed and checked against what its build recorded before anything
 * is sent (a file missing or added since the build is refused), each file with the sha256 its
 * bytes must have when they are packed (a file edited since is refused then, before any archive
 * holding it is sent), and the options every publish step shares.
 */
import fs from 'node:fs';
import type { S3Client } from '@aws-sdk/client-s3';
import { UserError } from '../core/errors.ts';
import type { Progress } from '../core/progress.ts';
import { checkAgainstRecords, editedSinceBuild, readBuildRecords, type BuildRecords, type TreeTaker } from './build-records.ts';
import type { Location } from './location.ts';
import { readMeta, listTreePaths, type TreeFile } from './read-tree.ts';
import { throwIfInterrupted } from './storage.ts';
import { checkRun, TREE_FILE_THREADS } from './tree-file-pool.ts';
import { isPackedFolder, type OpenedPackedFolder } from '../tree/packed-folder.ts';
import { checkPackedArchives, readPackedTree } from './packed-tree.ts';

export interface PublishOptions {
  dir: string;
  location: Location;
  client: S3Client;
  progress: Progress;
  abortSignal?: AbortSignal;
}

/** A tree listed and checked against what its build recorded: what may be published. */
export interface CheckedTree {
  /** The real path (a build that swaps --out while publish runs is noticed when a file's bytes are not the recorded ones). */
  dir: string;
  lastClosedDay: string;
  records: BuildRecords;
  files: TreeFile[];
  /** A packed folder (`build --packed`): its archives are sent as they are (packed-tree.ts); null for a tree of files. */
  packed: OpenedPackedFolder | null;
}

/** `taker`: who takes the tree, for the refusals' words (build-records.ts). */
export async function readCheckedTree(
  options: Pick<PublishOptions, 'dir' | 'progress' | 'abortSignal'>,
  taker: TreeTaker = 'publish',
): Promise<CheckedTree> {
  const dir = realTree(options.dir);
  if (isPackedFolder(dir)) {
    const packed = readPackedTree(dir, options.dir, taker);
    return { dir, lastClosedDay: packed.lastClosedDay, records: packed.records, files: packed.files, packed: packed.folder };
  }
  const meta = await readMeta(dir);
  const records = await readBuildRecords(dir, options.dir, taker);
  options.progress.start('list the tree');
  const { paths, unpublished } = await listTreePaths(dir, () => throwIfInterrupted(options.abortSignal, 'listing the tree'));
  // Nothing unverified goes live: nothing is missing or extra, and every byte is checked as it is packed.
  const files = checkAgainstRecords(records, { dir, paths, unpublished }, options.dir, taker);
  return { dir, lastClosedDay: meta.lastClosedDay, records, files, packed: null };
}

/** Files per check task, and tasks in flight (each thread has the next one waiting), as for packing. */
const CHECK_BATCH = 64;
const CHECK_TASKS_IN_FLIGHT = 2 * TREE_FILE_THREADS;

/**
 * Every file's bytes against the sha256 its build recorded, for a tree that is not packed because
 * its version is stored already (live, or a shard staged): packing checks each file as it reads
 * it, and without this a tree edited after its publish would be answered "nothing to send".
 * Refused as packing refuses, before anything is sent or moved.
 */
export async function checkTreeBytes(
  options: Pick<PublishOptions, 'dir' | 'progress' | 'abortSignal'>,
  tree: CheckedTree,
  taker: TreeTaker = 'publish',
): Promise<void> {
  options.progress.start("check the tree against its build's records");
  if (tree.packed) return checkPackedArchives(tree.packed, (file) => editedSinceBuild(options.dir, file, taker, 0));
  const batches: TreeFile[][] = [];
  for (let start = 0; start < tree.files.length; start += CHECK_BATCH) batches.push(tree.files.slice(start, start + CHECK_BATCH));
  let next = 0;
  let done = 0;
  const edited: string[] = [];
  const worker = async () => {
    while (edited.length === 0 && next < batches.length) {
      throwIfInterrupted(options.abortSignal, 'checking the tree');
      const batch = batches[next++]!;
      const found = await checkRun(tree.dir, batch);
      if (found !== null) edited.push(found);
      done += batch.length;
      options.progress.tick(done, tree.files.length, 'files');
    }
  };
  await Promise.all(Array.from({ length: Math.min(CHECK_TASKS_IN_FLIGHT, batches.length) }, worker));
  // The first edited file in tree path order is named, whichever thread found one first.
  if (edited.length > 0) throw editedSinceBuild(options.dir, edited.sort()[0]!, taker, 0);
}

/** The folder behind `--dir` (a link to a build folder, as `build --out` makes), refused when there is none. */
function realTree(dir: string): string {
  const link = fs.lstatSync(dir, { throwIfNoEntry: false });
  if (!link) throw new UserError(`--dir ${dir} does not exist: give the folder build --out wrote (e.g. --dir public)`);
  const real = (() => {
    try {
      return fs.realpathSync(dir);
    } catch {
      return null;
    }
  })();
  if (real === null)
    throw new UserError(
      `--dir ${dir} is a link to ${fs.readlinkSync(dir)}, which does not exist (a removed build?): build again, or give the folder build --out wrote`,
    );
  if (!fs.statSync(real).isDirectory()) throw new UserError(`--dir ${dir} is not a folder: give the folder build --out wrote`);
  return real;
}
