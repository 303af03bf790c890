/**
 * A task of the tree-file threads (tree-file-pool.ts): describe a batch of files, or read a batch
 * again and pack it: each file's tar member (header, its bytes as stored, gzip for text, padding)
 * one after the other in one buffer, moved (not copied) to the main thread, which only places runs
 * of members into archives. Everything here is synchronous: a thread does one task at a time, and
 * synchronous reads, hashes and gzip cost less CPU than their asynchronous forms.
 */
import crypto from 'node:crypto';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { isCompressible } from '../tree/bucket.ts';
import { memberHeader, memberName, memberPadding } from '../tree/pack-archive.ts';
import { pathHashFromDigest } from '../tree/pack-index.ts';
import { gzip } from './compress.ts';
import { describeFile, readTreeFileSync, sha256Hex, type TreeFile } from './tree-file.ts';

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
}

/** A batch of files packed: their members, in the order given, in one buffer. */
export interface PackedRun {
  bytes: Uint8Array;
  members: PackedMember[];
}

export type TreeFileTask =
  | { kind: 'describe'; dir: string; paths: string[] }
  | { kind: 'pack'; dir: string; files: TreeFile[] };

/** `pack`: the path of the first file whose bytes are no longer those described (a build replaced the tree?) instead of a run. */
export type TreeFileAnswer = { files: TreeFile[] } | PackedRun | { changed: string };

export function runTreeFileTask(task: TreeFileTask): TreeFileAnswer {
  if (task.kind === 'describe') return { files: task.paths.map((treePath) => describeFile(task.dir, treePath)) };
  const parts: Uint8Array[] = [];
  const members: PackedMember[] = [];
  let size = 0;
  for (const file of task.files) {
    const { bytes } = readTreeFileSync(task.dir, file.path);
    if (sha256Hex(bytes) !== file.sha256) return { changed: file.path };
    const compressed = isCompressible(file.path);
    const body = compressed ? gzip(bytes) : bytes;
    const header = memberHeader(memberName(file.path, compressed), body.length, file.mtimeMs);
    parts.push(header, body);
    const dataStart = size + header.length;
    size = dataStart + body.length + memberPadding(body.length);
    members.push({ end: size, dataStart, length: body.length, gzip: compressed, pathHash: pathHashFromDigest(crypto.createHash('sha256').update(file.path).digest()) });
  }
  // A buffer of its own (never Node's shared pool), so that moving it detaches nothing else.
  const bytes = new Uint8Array(size);
  let at = 0;
  for (let i = 0; i < parts.length; i += 2) {
    bytes.set(parts[i]!, at);
    bytes.set(parts[i + 1]!, at + parts[i]!.length);
    at = members[i / 2]!.end;
  }
  return move({
    get [transferableSymbol]() {
      return bytes.buffer;
    },
    get [valueSymbol]() {
      return { bytes, members };
    },
  }) as unknown as PackedRun;
}
