/**
 * Documents are stored gzipped, level 6 (zlib's default): at 10,000 wallets it stores 12% fewer
 * bytes than level 1 for 4.4 more CPU-seconds, and every reader is sent those bytes
 * (docs/decisions.md, "Publishing"). Synchronous: publish compresses on its tree-file threads
 * (tree-file-pool.ts), where an asynchronous call would only add the cost of handing each
 * document to libuv's pool (bench/MEASUREMENTS.md, "gzip by size").
 */
import zlib from 'node:zlib';

export const GZIP_LEVEL = 6;

export function gzip(bytes: Uint8Array): Buffer {
  return zlib.gzipSync(bytes, { level: GZIP_LEVEL });
}
