/**
 * A file of a tree as publish takes it: its path and the sha256 its build recorded, which its
 * bytes must have when they are read to be packed; and the synchronous reads of one file (run on
 * the tree-file threads, tree-file-pool.ts).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface TreeFile {
  /** Tree-relative, with forward slashes. */
  path: string;
  /** Hex sha256 of the file's (uncompressed) bytes, as its build recorded it. */
  sha256: string;
}

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

/** A file of the tree with the sha256 of its bytes now (the build's own records, which record no hash of themselves). */
export function describeFile(dir: string, treePath: string): TreeFile {
  return { path: treePath, sha256: sha256Hex(readTreeFileSync(dir, treePath).bytes) };
}

/** The file of a tree path (always `/`-separated) under the tree folder `dir`. */
export function resolveInTree(dir: string, treePath: string): string {
  return path.join(dir, ...treePath.split('/'));
}
