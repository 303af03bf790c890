/**
 * The task of the tree-file threads (tree-file-pool.ts): read a batch of files once, check each
 * against the sha256 its build recorded, and pack it: each file's tar member (header, its bytes as
 * stored, gzip for text, padding) one after the other in one buffer: the caller's shared buffer
 * when the run fits (the same few buffers serve every run), else one moved (not copied) to the
 * main thread, which only places runs of members into archives. A batch holding a file whose bytes
 * are not the recorded ones returns that file's path instead, so no archive ever holds unchecked
 * bytes. Everything here is synchronous: a thread does one task at a time, and synchronous reads,
 * hashes and gzip cost less CPU than their asynchronous forms.
 */
import crypto from 'node:crypto';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { isCompressible } from '../tree/bucket.ts';
import { memberHeader, memberName, memberPadding } from '../tree/pack-archive.ts';
import { pathHashFromDigest } from '../tree/pack-index.ts';
import { gzip } from '../tree/pack-compress.ts';
import { readTreeFileSync, sha256Hex, type TreeFile } from './tree-file.ts';
import { listFoldersSync, type FolderListing } from './list-folders.ts';

/** A file's member in a packed run. */
export interface PackedMember {
  /** Where the member ends in the run's bytes (the next one starts there). */
  end: number;
  /** Where its data starts in the run's bytes (past its header). */
  dataStart: number;
  /** Its data's length: the bytes as stored. */
  length: number;
  gzip: boolean;
  /** The path's hash in the index (tree/pack-index.ts). */
  pathHash: bigint;
  /** The file's size and modification time, from the read that packed it. */
  size: number;
  mtimeMs: number;
}

/** A batch of files packed: their members, in the order given, in one buffer. */
export interface PackedRun {
  bytes: Uint8Array;
  members: PackedMember[];
}

export interface TreeFileTask {
  dir: string;
  files: TreeFile[];
  /**
   * Where the run is written when it fits, read by the caller once the task is answered. A fresh
   * buffer per run, moved to the main thread, counts there as external memory, and V8 collects
   * the main thread's whole heap every 64 MB of it (bench/LOG.md).
   */
  into: SharedArrayBuffer;
}

/** A packed run, or the path of the first file whose bytes are not the ones its build recorded (edited, or a build replaced the tree). */
export type TreeFileAnswer = PackedRun | { edited: string };

export function runTreeFileTask(task: TreeFileTask): TreeFileAnswer {
  const parts: Uint8Array[] = [];
  const members: PackedMember[] = [];
  let size = 0;
  for (const file of task.files) {
    const { bytes, mtimeMs } = readTreeFileSync(task.dir, file.path);
    if (sha256Hex(bytes) !== file.sha256) return { edited: file.path };
    const compressed = isCompressible(file.path);
    const body = compressed ? gzip(bytes) : bytes;
    const header = memberHeader(memberName(file.path, compressed), body.length, mtimeMs);
    parts.push(header, body);
    const dataStart = size + header.length;
    size = dataStart + body.length + memberPadding(body.length);
    members.push({
      end: size,
      dataStart,
      length: body.length,
      gzip: compressed,
      pathHash: pathHashFromDigest(crypto.createHash('sha256').update(file.path).digest()),
      size: bytes.length,
      mtimeMs,
    });
  }
  const fits = size <= task.into.byteLength;
  // Else a buffer of its own (never Node's shared pool), so that moving it detaches nothing else.
  const bytes = fits ? new Uint8Array(task.into, 0, size) : new Uint8Array(size);
  let at = 0;
  for (let i = 0; i < parts.length; i += 2) {
    bytes.set(parts[i]!, at);
    bytes.set(parts[i + 1]!, at + parts[i]!.length);
    // A shared buffer reused holds the last run's bytes in the padding: zeroed, as tar requires.
    bytes.fill(0, at + parts[i]!.length + parts[i + 1]!.length, members[i / 2]!.end);
    at = members[i / 2]!.end;
  }
  // A view of shared memory crosses to the main thread as it is, without a copy.
  if (fits) return { bytes, members };
  return move({
    get [transferableSymbol]() {
      return bytes.buffer;
    },
    get [valueSymbol]() {
      return { bytes, members };
    },
  }) as unknown as PackedRun;
}

/** A batch of files only checked against the sha256 their build recorded (a tree that is not packed: checked-tree.ts). */
export interface CheckTask {
  dir: string;
  files: TreeFile[];
}

/** The path of the first file whose bytes are not the recorded ones, or null when all are. */
export function runCheckTask(task: CheckTask): { edited: string | null } {
  for (const file of task.files) if (sha256Hex(readTreeFileSync(task.dir, file.path).bytes) !== file.sha256) return { edited: file.path };
  return { edited: null };
}

/** The other task of the threads: folders of a tree listed to the bottom (read-tree.ts). */
export interface ListTask {
  dir: string;
  folders: string[];
}

export function runListTask(task: ListTask): FolderListing {
  return listFoldersSync(task.dir, task.folders, true);
}
