/**
 * A file of a tree as publish sees it, and the synchronous work of describing one (size, mtime,
 * sha256, the closed months of a daily document): run on the tree-file threads
 * (tree-file-pool.ts).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { closedMonthsSpan } from '../tree/daily-rows.ts';

export interface TreeFile {
  /** Tree-relative, with forward slashes. */
  path: string;
  size: number;
  /** Modification time in whole milliseconds since the epoch. */
  mtimeMs: number;
  /** Hex sha256 of the file's (uncompressed) bytes. */
  sha256: string;
  /** For a daily document stored in two parts: its closed months' bytes, stored as a blob. */
  blob?: BlobPart;
}

/** `length` bytes of a file from offset `at`, stored as the blob named by their sha256. */
export interface BlobPart {
  sha256: string;
  at: number;
  length: number;
}

/** The bytes of the file stored under the version: all of it, or what its blob leaves. */
export const storedSize = (file: TreeFile) => file.size - (file.blob?.length ?? 0);

/** Bytes, size and mtime from one open descriptor, so that the three describe the same file. */
export function readTreeFileSync(dir: string, treePath: string): { bytes: Buffer; size: number; mtimeMs: number } {
  const descriptor = fs.openSync(resolveInTree(dir, treePath), 'r');
  try {
    const { mtimeMs } = fs.fstatSync(descriptor);
    const bytes = fs.readFileSync(descriptor);
    return { bytes, size: bytes.length, mtimeMs: Math.floor(mtimeMs) };
  } finally {
    fs.closeSync(descriptor);
  }
}

export const sha256Hex = (bytes: Uint8Array) => crypto.createHash('sha256').update(bytes).digest('hex');

/** A file of the tree, hashed; a daily document reaching back before the month of `lastClosedDay` with its closed months' span. */
export function describeFile(dir: string, treePath: string, lastClosedDay: string): TreeFile {
  const { bytes, size, mtimeMs } = readTreeFileSync(dir, treePath);
  const file: TreeFile = { path: treePath, size, mtimeMs, sha256: sha256Hex(bytes) };
  const span = closedMonthsSpan(treePath, bytes, lastClosedDay);
  if (span) file.blob = { ...span, sha256: sha256Hex(bytes.subarray(span.at, span.at + span.length)) };
  return file;
}

/** The file of a tree path (always `/`-separated) under the tree folder `dir`. */
export function resolveInTree(dir: string, treePath: string): string {
  return path.join(dir, ...treePath.split('/'));
}
