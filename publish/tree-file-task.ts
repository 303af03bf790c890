/**
 * A task of the tree-file threads (tree-file-pool.ts): describe a batch of files, or make one
 * file's stored object and its blob from one read. Everything here is synchronous: a thread does one task at a time, and
 * synchronous reads, hashes and gzip cost less CPU than their asynchronous forms.
 */
import { describeFile, readTreeFileSync, sha256Hex, type TreeFile } from './tree-file.ts';
import { blobObject, fileObject, type StoredObject } from './stored-object.ts';

/** What one read of a file makes: its object under the version, the blob of its closed months, or both. */
export interface StoredParts {
  object?: StoredObject;
  blob?: StoredObject;
}

export type TreeFileTask =
  | { kind: 'describe'; dir: string; paths: string[]; lastClosedDay: string }
  | { kind: 'objects'; dir: string; version: string; file: TreeFile; object: boolean; blob: boolean };

export type TreeFileAnswer = { files: TreeFile[] } | { parts: StoredParts | null };

export function runTreeFileTask(task: TreeFileTask): TreeFileAnswer {
  if (task.kind === 'describe') return { files: task.paths.map((treePath) => describeFile(task.dir, treePath, task.lastClosedDay)) };
  return { parts: storedPartsOf(task) };
}

/** The parts asked for, from one read of the file; null when its bytes are no longer those described (a build replaced the tree?). */
function storedPartsOf({ dir, version, file, object, blob }: Extract<TreeFileTask, { kind: 'objects' }>): StoredParts | null {
  const { bytes } = readTreeFileSync(dir, file.path);
  if (sha256Hex(bytes) !== file.sha256) return null;
  const parts: StoredParts = {};
  if (blob) parts.blob = ownBytes(blobObject(file, bytes));
  if (object) parts.object = ownBytes(fileObject(version, file, bytes));
  return parts;
}

/**
 * gzip's output is a view into zlib's 16 KB chunk: sent as it is, the whole chunk would be copied
 * to the main thread for an object of a few hundred bytes.
 */
function ownBytes(object: StoredObject): StoredObject {
  if (object.body.byteLength !== object.body.buffer.byteLength) object.body = new Uint8Array(object.body);
  return object;
}
