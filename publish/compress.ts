/**
 * Documents are stored gzipped. zlib's asynchronous calls run on libuv's thread pool, so both cores
 * compress while the main thread keeps requests in flight. Level 6 (zlib's default): at 10,000
 * wallets it stores 12% fewer bytes than level 1 for 4.4 more CPU-seconds, and every reader is
 * sent those bytes (docs/decisions.md, "Publishing").
 */
import zlib from 'node:zlib';
import { promisify } from 'node:util';

export const GZIP_LEVEL = 6;

const gzipAsync = promisify(zlib.gzip);

export function gzip(bytes: Uint8Array): Promise<Buffer> {
  return gzipAsync(bytes, { level: GZIP_LEVEL });
}
