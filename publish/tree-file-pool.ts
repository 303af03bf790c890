/**
 * The threads that read, hash and compress a tree's files for publish (piscina), so that the main
 * thread spends its time on requests: at 10,000 wallets it was busy 46 of a publish's 50 seconds,
 * a third of that reading, hashing and compressing (bench/MEASUREMENTS.md, "publish's file work
 * on threads"). One pool per process, started at its first task; its idle threads do not keep the
 * process alive.
 */
import os from 'node:os';
import { Piscina } from 'piscina';
import { UserError } from '../core/errors.ts';
import type { StoredObject } from './stored-object.ts';
import type { TreeFile } from './tree-file.ts';
import type { TreeFileAnswer, TreeFileTask } from './tree-file-task.ts';

let pool: Piscina<TreeFileTask, TreeFileAnswer> | null = null;

function threads(): Piscina<TreeFileTask, TreeFileAnswer> {
  const count = os.availableParallelism();
  pool ??= new Piscina({ filename: new URL('./tree-file-thread.js', import.meta.url).href, minThreads: count, maxThreads: count, idleTimeout: 60_000 });
  return pool;
}

/** Each file of `paths` described (size, mtime, sha256, closed months), in the order given. */
export async function describeFiles(dir: string, paths: string[], lastClosedDay: string): Promise<TreeFile[]> {
  const answer = await threads().run({ kind: 'describe', dir, paths, lastClosedDay });
  return (answer as { files: TreeFile[] }).files;
}

/**
 * The object of `file` under `version`, or (`part` 'blob') the blob of its closed months, from
 * its bytes now; refused when they are not the bytes described at the start. `dirOption` is the
 * --dir the user gave, for the message.
 */
export async function storedObject(dir: string, dirOption: string, version: string, file: TreeFile, part: 'file' | 'blob'): Promise<StoredObject> {
  const { object } = (await threads().run({ kind: 'object', dir, version, file, part })) as { object: StoredObject | null };
  if (object === null) {
    throw new UserError(`--dir ${dirOption}: ${file.path} changed while it was being published (a build replaced the tree?); publish again once the tree is complete`);
  }
  return object;
}
