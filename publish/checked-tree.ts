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
import { checkAgainstRecords, readBuildRecords, type BuildRecords, type TreeTaker } from './build-records.ts';
import type { Location } from './location.ts';
import { readMeta, listTreePaths, type TreeFile } from './read-tree.ts';
import { throwIfInterrupted } from './storage.ts';

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
}

/** `taker`: who takes the tree, for the refusals' words (build-records.ts). */
export async function readCheckedTree(options: Pick<PublishOptions, 'dir' | 'progress' | 'abortSignal'>, taker: TreeTaker = 'publish'): Promise<CheckedTree> {
  const dir = realTree(options.dir);
  const meta = await readMeta(dir);
  const records = await readBuildRecords(dir, options.dir, taker);
  options.progress.start('list the tree');
  const { paths, unpublished } = await listTreePaths(dir, () => throwIfInterrupted(options.abortSignal, 'listing the tree'));
  // Nothing unverified goes live: nothing is missing or extra, and every byte is checked as it is packed.
  const files = checkAgainstRecords(records, { dir, paths, unpublished }, options.dir, taker);
  return { dir, lastClosedDay: meta.lastClosedDay, records, files };
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
  if (real === null) throw new UserError(`--dir ${dir} is a link to ${fs.readlinkSync(dir)}, which does not exist (a removed build?): build again, or give the folder build --out wrote`);
  if (!fs.statSync(real).isDirectory()) throw new UserError(`--dir ${dir} is not a folder: give the folder build --out wrote`);
  return real;
}

