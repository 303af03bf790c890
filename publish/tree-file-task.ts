/**
 * A task of the tree-file threads (tree-file-pool.ts): describe a batch of files, or read a batch
 * again and make each file's member of an archive (its bytes as stored: gzip for text). Everything
 * here is synchronous: a thread does one task at a time, and synchronous reads, hashes and gzip
 * cost less CPU than their asynchronous forms.
 */
import { isCompressible } from '../tree/bucket.ts';
import { gzip } from './compress.ts';
import { describeFile, readTreeFileSync, sha256Hex, type TreeFile } from './tree-file.ts';

/** A file's bytes as an archive stores them. */
export interface Member {
  body: Uint8Array;
  gzip: boolean;
}

export type TreeFileTask =
  | { kind: 'describe'; dir: string; paths: string[] }
  | { kind: 'members'; dir: string; files: TreeFile[] };

/** `members`: null at the first file whose bytes are no longer those described (a build replaced the tree?), with its path. */
export type TreeFileAnswer = { files: TreeFile[] } | { members: Member[] } | { changed: string };

export function runTreeFileTask(task: TreeFileTask): TreeFileAnswer {
  if (task.kind === 'describe') return { files: task.paths.map((treePath) => describeFile(task.dir, treePath)) };
  const members: Member[] = [];
  for (const file of task.files) {
    const { bytes } = readTreeFileSync(task.dir, file.path);
    if (sha256Hex(bytes) !== file.sha256) return { changed: file.path };
    const compressed = isCompressible(file.path);
    // gzip's output is a view into zlib's 16 KB chunk: sent as it is, the whole chunk would be
    // copied to the main thread for a member of a few hundred bytes.
    members.push({ body: compressed ? new Uint8Array(gzip(bytes)) : new Uint8Array(bytes), gzip: compressed });
  }
  return { members };
}
