/**
 * The floors of a shard's job (docs/sharded-night.md), measured on the same documents as files:
 * the pack floor (every file read once and gzipped at level 2, on two threads: what any job that
 * sends the documents compressed must spend), the same read and hashed with sha256 instead, and
 * (floor.ts) Node writing the same files. Each pass reports its wall seconds and its threads'
 * seconds of reading and of work.
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { GZIP_LEVEL } from '../tree/bucket.ts';

export interface PassFigures {
  wallSeconds: number;
  /** Summed over the threads. */
  readSeconds: number;
  workSeconds: number;
  bytes: number;
  /** gzip: the bytes compressed. */
  storedBytes: number;
}

const THREAD = new URL('./pack-floor-thread.mjs', import.meta.url);

/** `files` (paths under `root`) read once and gzipped (or hashed) on `threads` threads, each a share of the files in turn. */
export async function measurePass(root: string, files: string[], work: 'gzip' | 'sha256', threads = 2): Promise<PassFigures> {
  const shares = Array.from({ length: threads }, (_, i) => files.filter((_, k) => k % threads === i).map((file) => path.join(root, file)));
  const started = performance.now();
  const results = await Promise.all(
    shares.map(
      (share) =>
        new Promise<{ readSeconds: number; workSeconds: number; bytes: number; stored: number }>((resolve, reject) => {
          const worker = new Worker(THREAD, { workerData: { files: share, work, level: GZIP_LEVEL } });
          worker.once('message', resolve);
          worker.once('error', reject);
        }),
    ),
  );
  const sum = (key: 'readSeconds' | 'workSeconds' | 'bytes' | 'stored') => results.reduce((total, one) => total + one[key], 0);
  return {
    wallSeconds: (performance.now() - started) / 1000,
    readSeconds: sum('readSeconds'),
    workSeconds: sum('workSeconds'),
    bytes: sum('bytes'),
    storedBytes: sum('stored'),
  };
}
