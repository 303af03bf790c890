/**
 * The threads that read, check and compress a tree's files for publish (piscina), so that the main
 * thread spends its time on requests: at 10,000 wallets it was busy 46 of a publish's 50 seconds,
 * a third of that reading, hashing and compressing (bench/LOG.md, "publish's file work
 * on threads"). One pool per process, started at its first task; its idle threads do not keep the
 * process alive. Refusals come back as values: an error crossing threads loses its class.
 */
import os from 'node:os';
import { Piscina } from 'piscina';
import type { TreeFile } from './tree-file.ts';
import type { CheckTask, ListTask, TreeFileAnswer, TreeFileTask } from './tree-file-task.ts';
import type { FolderListing } from './list-folders.ts';

/** Threads at most: each is a V8 isolate with TypeScript loaded (about 75 MB), and the requests keep the main thread busy. */
const MAX_THREADS = 4;

/**
 * How many threads the pool has at most: twice the cores, at most 4. A tree just built is larger
 * than the page cache of a runner, so a thread often waits for the disk, and another then has its
 * core (bench/LOG.md). Callers keep about twice as many tasks in flight.
 */
export const TREE_FILE_THREADS = Math.max(1, Math.min(2 * os.availableParallelism(), MAX_THREADS));

let pool: Piscina<TreeFileTask | ListTask | CheckTask, TreeFileAnswer | FolderListing | { edited: string | null }> | null = null;
/** A thread that failed outside any task (e.g. while loading): reported by the next task. */
let poolFailure: Error | null = null;

function threads(): Piscina<TreeFileTask | ListTask | CheckTask, TreeFileAnswer | FolderListing | { edited: string | null }> {
  if (poolFailure) throw poolFailure;
  if (!pool) {
    // One thread at first, more as tasks queue up: starting a thread (TypeScript loaded through
    // tsx) costs more than a small tree's task or two.
    pool = new Piscina({
      filename: new URL('./tree-file-thread.js', import.meta.url).href,
      minThreads: 1,
      maxThreads: TREE_FILE_THREADS,
      idleTimeout: 60_000,
    });
    pool.on('error', (error: Error) => {
      poolFailure ??= new Error(`publish's tree-file thread failed: ${error.message}`);
    });
  }
  return pool;
}

/**
 * The files packed into one run of tar members (tree-file-task.ts), from one read of their bytes,
 * in the order given; or the path of the first file whose bytes are not the ones its build
 * recorded (the caller says what that means to its user). The run is written into `into` when
 * it fits: the caller keeps it for this task until it has read the run.
 */
export async function packRun(dir: string, files: TreeFile[], into: SharedArrayBuffer): Promise<TreeFileAnswer> {
  return threads().run({ dir, files, into }) as Promise<TreeFileAnswer>;
}

/** `folders` of the tree in `dir` listed to the bottom, on a thread (read-tree.ts). */
export async function listFoldersOnThread(dir: string, folders: string[]): Promise<FolderListing> {
  return threads().run({ dir, folders }, { name: 'list' }) as Promise<FolderListing>;
}

/** The first of `files` whose bytes are not the ones its build recorded, or null (checked-tree.ts), on a thread. */
export async function checkRun(dir: string, files: TreeFile[]): Promise<string | null> {
  return ((await threads().run({ dir, files }, { name: 'check' })) as { edited: string | null }).edited;
}
