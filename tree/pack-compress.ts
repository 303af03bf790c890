/**
 * How a packed member is compressed (tree/bucket.ts, GZIP_LEVEL): one function for `build --packed`,
 * which compresses each document as it is made, and for `publish`, which compresses a plain
 * tree's files as it packs them, so that both forms of a night store the same member bytes.
 * Synchronous: both call it on threads of their own, where an asynchronous call would only add
 * the cost of handing each document to libuv's pool (bench/LOG.md, "gzip by size"). Node only.
 */
import zlib from 'node:zlib';
import { GZIP_LEVEL } from './bucket.ts';

export function gzip(bytes: Uint8Array): Buffer {
  return zlib.gzipSync(bytes, { level: GZIP_LEVEL });
}
