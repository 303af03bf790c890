/**
 * A task of the tree-file threads (tree-file-pool.ts): describe a batch of files, or make one
 * file's stored object. Everything here is synchronous: a thread does one task at a time, and
 * synchronous reads, hashes and gzip cost less CPU than their asynchronous forms.
 */
import { describeFile, readTreeFileSync, sha256Hex, type TreeFile } from './tree-file.ts';
import { blobObject, fileObject, type StoredObject } from './stored-object.ts';

export type TreeFileTask =
  | { kind: 'describe'; dir: string; paths: string[]; lastClosedDay: string }
  | { kind: 'object'; dir: string; version: string; file: TreeFile; part: 'file' | 'blob' };

export type TreeFileAnswer = { files: TreeFile[] } | { object: StoredObject | null };

export function runTreeFileTask(task: TreeFileTask): TreeFileAnswer {
  if (task.kind === 'describe') return { files: task.paths.map((treePath) => describeFile(task.dir, treePath, task.lastClosedDay)) };
  return { object: storedObjectOf(task.dir, task.version, task.file, task.part) };
}

/**
 * The object of a file under `version`, or (`part` 'blob') the blob of its closed months; null
 * when the file's bytes are no longer those described (a build replaced the tree?).
 */
function storedObjectOf(dir: string, version: string, file: TreeFile, part: 'file' | 'blob'): StoredObject | null {
  const { bytes } = readTreeFileSync(dir, file.path);
  if (sha256Hex(bytes) !== file.sha256) return null;
  const object = part === 'blob' ? blobObject(file, bytes) : fileObject(version, file, bytes);
  // gzip's output is a view into zlib's 16 KB chunk: sent as it is, the whole chunk would be copied
  // to the main thread for an object of a few hundred bytes.
  if (object.body.byteLength !== object.body.buffer.byteLength) object.body = new Uint8Array(object.body);
  return object;
}
