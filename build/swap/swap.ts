/**
 * Publishing a finished tree in one atomic step, and owning `--out` while a build runs.
 *
 * `--out` is a symbolic link to a complete build folder kept beside it, on the same filesystem:
 *
 *   public -> .public.builds/20251121T170012Z-3f2a
 *   .public.builds/20251121T170012Z-3f2a/   the live tree
 *   .public.builds/20251120T170009Z-81c0/   the tree it replaced (kept for a rollback by hand)
 *   .public.builds/work-<id>/               a running build: its tree and DuckDB's scratch files
 *   .public.lock                            locked by the build that owns `public` (lock.ts)
 *   .public.lock.owner                      who that build is (host, PID, start time)
 *
 * A new tree goes live when a new link, made under a temporary name, is renamed over `--out`:
 * one rename(2), so every reader (a server, `aws s3 sync`) sees one whole tree or the other.
 * Before that rename the tree is flushed to the disk, so that after a power loss `--out` never
 * points at files the disk does not hold. A plain folder written by an earlier version is taken
 * over on the first build (see `goLive`), by two renames that the next build repairs if a kill
 * falls between them.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import crypto from 'node:crypto';
import { spawn } from 'node:child_process';
import pLimit from 'p-limit';
import { EXIT_BUSY, EXIT_CANNOT_WRITE, UserError, messageOf } from '../../core/errors.ts';
import { FileLock, describeOwner, readOwner } from './lock.ts';
import { META_FILE } from '../../tree/layout.ts';
import { isWithin } from '../../core/paths.ts';
import { NO_FAULTS, type InjectedFaults, type SwapPoint } from '../faults.ts';

export interface OutputPaths {
  out: string;
  parent: string;
  /** `.public.builds`: complete trees and work folders. */
  builds: string;
  /** `.public.lock`: the lock that says which build owns `--out` (lock.ts). */
  lockFile: string;
  /** Prefix of the temporary names of new links in `parent`. */
  linkPrefix: string;
}

function outputPaths(outDir: string): OutputPaths {
  const parent = path.dirname(outDir);
  const name = path.basename(outDir);
  return {
    out: outDir,
    parent,
    builds: path.join(parent, `.${name}.builds`),
    lockFile: path.join(parent, `.${name}.lock`),
    linkPrefix: `.${name}.link-`,
  };
}

interface WorkFolder {
  id: string;
  root: string;
  /** Where the new tree is written. */
  tree: string;
  /** Scratch space for DuckDB (its database file and spill files). */
  scratch: string;
}

/** What `--out` held when the build claimed it. */
type Current = { kind: 'none' } | { kind: 'link'; build: string } | { kind: 'folder' };

export interface ClaimedOutput {
  paths: OutputPaths;
  work: WorkFolder;
  /** Notes for the summary (an interrupted swap repaired, a folder taken over). */
  notes: string[];
  current: Current;
  lock: FileLock;
}

const BUILD_ID = /^\d{8}T\d{6}Z-[0-9a-f]{4}$/;
const ADOPTED = /^adopted-\d{8}T\d{6}Z-[0-9a-f]{4}$/;

function newBuildId(): string {
  const stamp = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${stamp}-${crypto.randomBytes(2).toString('hex')}`;
}

/**
 * Everything about `--out` that can be refused is refused here, before any work: a path DuckDB
 * cannot take, a folder that is not a snapshot tree, a mount point, a dangling or foreign link, a
 * read-only place (exit 4), another build owning it (exit 75). Then the lock is taken, whatever an
 * earlier build killed outright left is repaired or removed, and a work folder is made.
 */
export async function claimOutput(outDir: string, keep: { input: string; manifest: string | null }): Promise<ClaimedOutput> {
  const paths = outputPaths(outDir);
  refuseUnsafeTargets(paths, keep);
  const found = inspectOut(paths);

  const lock = await takeLock(paths);
  try {
    const notes: string[] = [];
    const current = repairInterrupted(paths, found, notes);
    await removeAbandonedWork(paths);
    const id = newBuildId();
    const root = path.join(paths.builds, `work-${id}`);
    const work = { id, root, tree: path.join(root, 'tree'), scratch: path.join(root, 'scratch') };
    try {
      fs.mkdirSync(work.tree, { recursive: true });
      fs.mkdirSync(work.scratch);
    } catch (error) {
      throw writeRefused(paths, error);
    }
    return { paths, work, notes, current, lock };
  } catch (error) {
    lock.release();
    throw error;
  }
}

function refuseUnsafeTargets(paths: OutputPaths, keep: { input: string; manifest: string | null }): void {
  const { out, builds } = paths;
  for (const owned of [out, builds]) {
    if (isWithin(keep.input, owned)) {
      throw new UserError(
        `--out ${out} holds the input folder ${keep.input}: the build replaces --out as a whole and would delete the exports; choose another --out`,
      );
    }
    if (keep.manifest !== null && isWithin(keep.manifest, owned)) {
      throw new UserError(
        `--manifest ${keep.manifest} is inside --out ${out}, which the build replaces as a whole; write it beside the tree`,
      );
    }
  }
  // DuckDB reads a '?' in its database file's path as the start of options, and its scratch files
  // (database and spill) live in the work folder beside --out.
  if (out.includes('?')) {
    throw new UserError(
      `--out ${out}: the path holds a "?", which DuckDB cannot take in the path of the database file the build keeps beside --out; choose a path without one`,
    );
  }
}

/** What `--out` is now; refuses what no build may replace. Reads only. */
function inspectOut(paths: OutputPaths): Current {
  const { out } = paths;
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(out);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'none' };
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') {
      throw new UserError(`--out ${out}: cannot create the work folder beside it in ${paths.parent} (${messageOf(error)})`, 1, {
        cause: error,
      });
    }
    throw error;
  }
  if (stat.isSymbolicLink()) {
    const target = path.resolve(paths.parent, fs.readlinkSync(out));
    if (!fs.existsSync(target)) {
      throw new UserError(
        `--out ${out} is a dangling symbolic link (to ${target}, which does not exist); remove it, or point it at a tree (see "Rolling back" in docs/reliability.md)`,
      );
    }
    if (!isBuildOf(paths, target)) {
      throw new UserError(
        `--out ${out} is a symbolic link to ${target}, which is not a build folder of ${paths.builds}; the build replaces --out as a whole, so give it a new path, or the link a build made`,
      );
    }
    return { kind: 'link', build: path.basename(target) };
  }
  if (!stat.isDirectory()) throw new UserError(`--out ${out} exists and is not a directory`);
  const mount = mountAt(out);
  if (mount) {
    const readOnly = mount.options.split(',').includes('ro');
    throw new UserError(
      `--out ${out} is a mount point${readOnly ? ' (read-only)' : ''}: the build publishes by renaming a new tree onto --out, which a mount point cannot take; ` +
        `give --out a path inside it (e.g. ${path.join(out, 'public')})`,
      readOnly ? EXIT_CANNOT_WRITE : 1,
    );
  }
  if (!fs.existsSync(path.join(out, META_FILE)) && fs.readdirSync(out).length > 0) {
    throw new UserError(
      `--out ${out} is a folder with other content than a snapshot tree (no ${META_FILE}); the build replaces --out as a whole, so give it a new or empty folder, or one a build wrote`,
    );
  }
  return { kind: 'folder' };
}

function isBuildOf(paths: OutputPaths, target: string): boolean {
  const name = path.basename(target);
  if (!BUILD_ID.test(name) && !ADOPTED.test(name)) return false;
  try {
    return fs.realpathSync.native(path.dirname(target)) === fs.realpathSync.native(paths.builds);
  } catch {
    return false;
  }
}

/** The mount whose mount point is exactly `folder`, from the kernel's table (bind mounts included). */
function mountAt(folder: string): { options: string } | null {
  let table: string;
  try {
    table = fs.readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    // No /proc (not Linux): a device that differs from the parent's is the only sign.
    return fs.statSync(folder).dev !== fs.statSync(path.dirname(folder)).dev ? { options: '' } : null;
  }
  const real = fs.realpathSync.native(folder);
  for (const line of table.split('\n')) {
    const fields = line.split(' ');
    const mountPoint = fields[4]?.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
    if (mountPoint === real) return { options: fields[5] ?? '' };
  }
  return null;
}

async function takeLock(paths: OutputPaths): Promise<FileLock> {
  let lock: FileLock | null;
  try {
    fs.mkdirSync(paths.parent, { recursive: true });
    lock = await FileLock.tryAcquire(paths.lockFile, describeOwner());
    fs.mkdirSync(paths.builds, { recursive: true });
  } catch (error) {
    throw writeRefused(paths, error);
  }
  if (lock === null) {
    throw new UserError(
      `--out ${paths.out} is being built by another build (${readOwner(paths.lockFile)}; it holds the lock ${paths.lockFile}); ` +
        'two builds never write one --out at once: run this one when that one has ended',
      EXIT_BUSY,
    );
  }
  return lock;
}

/** A place the system would not let us write: exit 4 for a read-only or full disk, else 1. */
function writeRefused(paths: OutputPaths, error: unknown): UserError {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  const refused = ['EROFS', 'EACCES', 'EPERM', 'ENOSPC', 'EDQUOT'].includes(code);
  return new UserError(
    `--out ${paths.out}: cannot create the work folder beside it in ${paths.parent} (${messageOf(error)})`,
    refused ? EXIT_CANNOT_WRITE : 1,
    { cause: error },
  );
}

/**
 * Under the lock, what a build killed inside `goLive` left is put right before anything else:
 * `--out` missing while complete trees exist (killed between the two renames of a take-over)
 * gets its link back, to the newest complete tree; an old folder parked under a link's
 * temporary name is kept as a complete tree; stray temporary links are removed.
 */
function repairInterrupted(paths: OutputPaths, found: Current, notes: string[]): Current {
  for (const name of fs.readdirSync(paths.parent)) {
    if (!name.startsWith(paths.linkPrefix)) continue;
    const leftover = path.join(paths.parent, name);
    if (fs.lstatSync(leftover).isDirectory()) {
      const adopted = path.join(paths.builds, `adopted-${newBuildId()}`);
      fs.renameSync(leftover, adopted);
      notes.push(`kept the tree an interrupted build had set aside as ${adopted}`);
    } else {
      fs.rmSync(leftover, { force: true });
    }
  }
  // Only a take-over killed between its two renames leaves --out missing beside a taken-over
  // folder; a tree that was complete but never went live is not published this way.
  const trees = completeTrees(paths);
  if (found.kind !== 'none' || !trees.some((name) => ADOPTED.test(name))) return found;
  const newest = trees.at(-1)!;
  const link = linkTo(paths, newest);
  fs.renameSync(link, paths.out);
  fsyncFolder(paths.parent);
  notes.push(`--out was missing (a build was killed while publishing); it points again at ${path.join(paths.builds, newest)}`);
  return { kind: 'link', build: newest };
}

/** Complete trees in `builds`, oldest first: taken-over folders, then builds by their time. */
export function completeTrees(paths: OutputPaths): string[] {
  const names = fs.existsSync(paths.builds) ? fs.readdirSync(paths.builds) : [];
  const rank = (name: string) => (ADOPTED.test(name) ? `0${name.slice('adopted-'.length)}` : `1${name}`);
  return names.filter((name) => BUILD_ID.test(name) || ADOPTED.test(name)).sort((a, b) => (rank(a) < rank(b) ? -1 : 1));
}

/**
 * Work folders and half-deleted trees in `builds`: while we hold the lock no live build owns
 * any of them (a build works only under the lock), whatever machine or PID namespace it ran in.
 */
async function removeAbandonedWork(paths: OutputPaths): Promise<void> {
  for (const name of fs.readdirSync(paths.builds)) {
    if (name.startsWith('work-') || name.startsWith('trash-'))
      await fsp.rm(path.join(paths.builds, name), { recursive: true, force: true });
  }
}

/** A new link to `build`, under a temporary name in `parent`. */
function linkTo(paths: OutputPaths, build: string): string {
  const link = path.join(paths.parent, `${paths.linkPrefix}${crypto.randomBytes(4).toString('hex')}`);
  fs.symlinkSync(path.join(path.basename(paths.builds), build), link);
  return link;
}

/**
 * Makes the finished tree the one `--out` shows. Returns the build it replaced (kept), if any.
 * Every step after the flush is synchronous, so no signal handler runs inside the swap; a kill
 * at any point leaves `--out` whole (the old tree or the new one), except inside the take-over
 * of an old plain folder, which the next build repairs (repairInterrupted).
 */
export async function goLive(
  claimed: ClaimedOutput,
  options: { durable: boolean; signal: AbortSignal; faults?: InjectedFaults },
): Promise<string | null> {
  const { paths, work } = claimed;
  const testStop = (point: SwapPoint) => stopIfInjected(options.faults ?? NO_FAULTS, point);
  const final = path.join(paths.builds, work.id);
  // Made before the flush, so that the flush writes the link too.
  const link = linkTo(paths, work.id);
  try {
    if (options.durable) await flushFilesystem(work.tree, options.signal);
    if (options.signal.aborted) throw options.signal.reason;
  } catch (error) {
    fs.rmSync(link, { force: true });
    throw error;
  }
  testStop('before-swap');
  fs.renameSync(work.tree, final);
  fsyncFolder(paths.builds);
  let replaced: string | null = null;
  if (claimed.current.kind === 'folder') {
    // A plain folder of an earlier version joins the other trees, then the link takes its place:
    // two renames, and a kill between them leaves --out missing until the next build puts the
    // link back (repairInterrupted), with no tree lost.
    replaced = `adopted-${newBuildId()}`;
    fs.renameSync(paths.out, path.join(paths.builds, replaced));
    testStop('takeover');
    fs.renameSync(link, paths.out);
  } else {
    if (claimed.current.kind === 'link') replaced = claimed.current.build;
    fs.renameSync(link, paths.out);
  }
  fsyncFolder(paths.parent);
  testStop('after-swap');
  claimed.current = { kind: 'link', build: work.id };
  return replaced;
}

/**
 * Deletes every tree but the live one and the one it replaced. Each is first renamed to
 * `trash-*`, so that a kill in the middle of a deletion never leaves a half tree under a build's
 * name (the next build removes the rest).
 */
export async function removeOldTrees(claimed: ClaimedOutput, keep: (string | null)[], signal: AbortSignal): Promise<number> {
  let removed = 0;
  for (const name of completeTrees(claimed.paths)) {
    if (keep.includes(name)) continue;
    if (signal.aborted) break;
    const trash = path.join(claimed.paths.builds, `trash-${name}`);
    fs.renameSync(path.join(claimed.paths.builds, name), trash);
    await fsp.rm(trash, { recursive: true, force: true });
    removed++;
  }
  return removed;
}

/**
 * The work folder goes at once (one rename, so even a forced exit leaves no work under a build's
 * name), then its files; the lock is released last. Safe to call twice.
 */
export async function releaseOutput(claimed: ClaimedOutput): Promise<void> {
  const trash = abandonWork(claimed);
  if (trash) await fsp.rm(trash, { recursive: true, force: true });
  // A first build that failed leaves nothing but the lock file beside --out.
  if (claimed.current.kind === 'none') {
    try {
      fs.rmdirSync(claimed.paths.builds);
    } catch {
      // Not empty (a tree of an earlier build): it stays.
    }
  }
  claimed.lock.release();
}

/**
 * For a forced exit: the work moves aside at once, and a detached `rm` deletes it after we are
 * gone (the next build removes whatever is left, under the lock).
 */
export function abandonWorkNow(claimed: ClaimedOutput): void {
  const trash = abandonWork(claimed);
  if (trash) spawn('rm', ['-rf', '--', trash], { detached: true, stdio: 'ignore' }).unref();
}

function abandonWork(claimed: ClaimedOutput): string | null {
  if (!fs.existsSync(claimed.work.root)) return null;
  const trash = path.join(claimed.paths.builds, `trash-${claimed.work.id}`);
  try {
    fs.renameSync(claimed.work.root, trash);
    return trash;
  } catch {
    return null;
  }
}

/** Files and folders fsync'ed at once when `sync -f` is not there (libuv runs four at a time). */
const FSYNC_CONCURRENCY = 16;

/**
 * Every file and folder of the new tree written to the disk before it goes live. On Linux, one
 * syncfs(2) of the tree's filesystem through coreutils' `sync -f` when that command is there: one
 * call, about 30 times cheaper than an fsync per file (bench/LOG.md, "Flushing a tree"),
 * run as a child so that a signal still stops the build while the disk catches up. Elsewhere
 * (macOS, an image without coreutils) an fsync of each file and folder from Node, stopped between
 * files by a signal. docs/decisions.md, "The flush without sync".
 */
async function flushFilesystem(folder: string, signal: AbortSignal): Promise<void> {
  if (process.platform === 'linux' && (await syncFilesystem(folder, signal))) return;
  await fsyncTree(folder, signal);
}

/** `sync -f folder`; false when there is no such command. */
function syncFilesystem(folder: string, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const child = spawn('sync', ['-f', folder], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (data) => (stderr += data));
    const stop = () => child.kill('SIGKILL');
    signal.addEventListener('abort', stop, { once: true });
    child.on('error', (error: NodeJS.ErrnoException) => {
      signal.removeEventListener('abort', stop);
      if (error.code === 'ENOENT') return resolve(false);
      reject(new Error(`cannot run "sync -f" to flush the new tree to the disk: ${error.message}`, { cause: error }));
    });
    child.on('close', (code) => {
      signal.removeEventListener('abort', stop);
      if (signal.aborted) return reject(signal.reason);
      if (code === 0) return resolve(true);
      reject(new Error(`"sync -f ${folder}" failed (status ${code}): ${stderr.trim()}`));
    });
  });
}

/** fsync(2) of every file and folder under `folder`, folders after the files they hold. */
async function fsyncTree(folder: string, signal: AbortSignal): Promise<void> {
  const entries = await fsp.readdir(folder, { recursive: true, withFileTypes: true });
  const files = entries.filter((entry) => !entry.isDirectory()).map((entry) => path.join(entry.parentPath, entry.name));
  const folders = entries.filter((entry) => entry.isDirectory()).map((entry) => path.join(entry.parentPath, entry.name));
  // Deepest folders first, the tree's own folder last.
  folders.sort((a, b) => b.length - a.length);
  folders.push(folder);
  const limit = pLimit(FSYNC_CONCURRENCY);
  for (const group of [files, folders]) {
    try {
      await Promise.all(
        group.map((file) =>
          limit(async () => {
            if (signal.aborted) throw signal.reason;
            const handle = await fsp.open(file, 'r');
            try {
              await handle.sync();
            } finally {
              await handle.close();
            }
          }),
        ),
      );
    } catch (error) {
      limit.clearQueue();
      throw error;
    }
  }
}

function fsyncFolder(folder: string): void {
  const fd = fs.openSync(folder, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** An injected fault (build/faults.ts): killed outright, as by a power cut, at a named point. */
function stopIfInjected(faults: InjectedFaults, point: SwapPoint): void {
  if (faults.killAt === point) process.kill(process.pid, 'SIGKILL');
}
