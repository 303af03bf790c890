/**
 * Documents are stored gzipped, level 2: half the CPU of level 6 for 10% more bytes, so that a
 * 1,000,000-wallet shard stages in about 2 minutes (docs/decisions.md, "Publishing"); level 1
 * costs as much and stores more. Synchronous: publish compresses on its tree-file threads
 * (tree-file-pool.ts), where an asynchronous call would only add the cost of handing each
 * document to libuv's pool (bench/LOG.md, "gzip by size").
 */
import zlib from 'node:zlib';

export const GZIP_LEVEL = 2;

export function gzip(bytes: Uint8Array): Buffer {
  return zlib.gzipSync(bytes, { level: GZIP_LEVEL });
}
