/**
 * Atomic publish (SPEC section 6): the new tree is written into a work folder beside `--out`, on
 * the same filesystem, and swapped in by two renames only once complete. Until then `--out` is
 * never touched; on any failure the work folder is removed and `--out` is as it was.
 */
import fs from 'node:fs';
import path from 'node:path';
import { UserError, messageOf } from './errors.ts';
import { META_FILE } from '../tree/layout.ts';

export interface WorkFolder {
  root: string;
  /** Where the new tree is written. */
  tree: string;
  /** Scratch space for DuckDB (its database file and spill files). */
  scratch: string;
}

const WORK_PREFIX = (outDir: string) => `.${path.basename(outDir)}.build-`;

/**
 * The swap deletes whatever `--out` held: only a snapshot tree (or nothing) may be replaced, and
 * never a folder holding the input or the manifest being written.
 */
export function createWorkFolder(outDir: string, keep: { input: string; manifest: string | null }): WorkFolder {
  const parent = path.dirname(outDir);
  if (isWithin(keep.input, outDir)) {
    throw new UserError(`--out ${outDir} holds the input folder ${keep.input}: the build replaces --out as a whole and would delete the exports; choose another --out`);
  }
  if (keep.manifest !== null && isWithin(keep.manifest, outDir)) {
    throw new UserError(`--manifest ${keep.manifest} is inside --out ${outDir}, which the build replaces as a whole; write it beside the tree`);
  }
  // DuckDB reads a '?' in its database file's path as the start of options, and its scratch files
  // (database and spill) live in the work folder beside --out.
  if (outDir.includes('?')) {
    throw new UserError(`--out ${outDir}: the path holds a "?", which DuckDB cannot take in the path of the database file the build keeps beside --out; choose a path without one`);
  }
  if (fs.existsSync(outDir) && !fs.statSync(outDir).isDirectory()) {
    throw new UserError(`--out ${outDir} exists and is not a directory`);
  }
  if (fs.existsSync(outDir) && !fs.existsSync(path.join(outDir, META_FILE)) && fs.readdirSync(outDir).length > 0) {
    throw new UserError(`--out ${outDir} is a folder with other content than a snapshot tree (no ${META_FILE}); the build replaces --out as a whole, so give it a new or empty folder, or one a build wrote`);
  }
  let root: string;
  try {
    fs.mkdirSync(parent, { recursive: true });
    removeAbandoned(parent, WORK_PREFIX(outDir));
    root = fs.mkdtempSync(path.join(parent, `${WORK_PREFIX(outDir)}${process.pid}-`));
  } catch (error) {
    // The folder named by --out, or its parent, is not ours to write (read-only, a file, ...).
    throw new UserError(`--out ${outDir}: cannot create the work folder beside it in ${parent} (${messageOf(error)})`);
  }
  const work = { root, tree: path.join(root, 'tree'), scratch: path.join(root, 'scratch') };
  fs.mkdirSync(work.tree);
  fs.mkdirSync(work.scratch);
  return work;
}

/**
 * Replaces `outDir` with the finished tree (the tree it held moves into the work folder, removed
 * with it). Synchronous, so no signal handler runs in between. Returns whether a tree was replaced.
 */
export function publishTree(work: WorkFolder, outDir: string): boolean {
  const previous = path.join(work.root, 'previous');
  const hadPrevious = fs.existsSync(outDir);
  if (hadPrevious) fs.renameSync(outDir, previous);
  try {
    fs.renameSync(work.tree, outDir);
  } catch (error) {
    if (hadPrevious) fs.renameSync(previous, outDir);
    throw error;
  }
  return hadPrevious;
}

/** Whether `inner` is `outer` or inside it, symbolic links followed where the paths exist. */
function isWithin(inner: string, outer: string): boolean {
  const relative = path.relative(realPath(outer), realPath(inner));
  return relative === '' || (!relative.startsWith(`..${path.sep}`) && relative !== '..' && !path.isAbsolute(relative));
}

/** The real path of the longest existing part of `file`, with the rest appended. */
function realPath(file: string): string {
  const missing: string[] = [];
  let existing = file;
  while (!fs.existsSync(existing) && path.dirname(existing) !== existing) {
    missing.unshift(path.basename(existing));
    existing = path.dirname(existing);
  }
  return path.join(fs.realpathSync.native(existing), ...missing);
}

export function removeWorkFolder(work: WorkFolder): void {
  fs.rmSync(work.root, { recursive: true, force: true });
}

/**
 * Entries of `folder` named `<prefix><pid>...` (work folders, partial manifests) left by builds
 * that were killed outright (SIGKILL, power loss) and could not clean up.
 */
export function removeAbandoned(folder: string, prefix: string): void {
  for (const name of fs.readdirSync(folder)) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length).split('-')[0]);
    if (Number.isInteger(pid) && !isRunning(pid)) fs.rmSync(path.join(folder, name), { recursive: true, force: true });
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
