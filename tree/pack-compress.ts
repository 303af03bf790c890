/**
 * How a packed member is compressed (tree/bucket.ts, GZIP_LEVEL): one function for `build --packed`,
 * which compresses each document as it is made, and for `publish`, which compresses a plain
 * tree's files as it packs them, so that both forms of a night store the same member bytes; and
 * how one is uncompressed in Node (verify, publish's and serve's reads of a packed folder, the
 * store's scrub; the Worker has its own, server/gunzip.ts).
 * Synchronous: both call it on threads of their own, where an asynchronous call would only add
 * the cost of handing each document to libuv's pool (bench/LOG.md, "gzip by size"). Node only.
 */
import zlib from 'node:zlib';
import { GZIP_LEVEL } from './bucket.ts';

export function gzip(bytes: Uint8Array): Buffer {
  return zlib.gzipSync(bytes, { level: GZIP_LEVEL });
}

/** A document's output buffer is at most this large when its member's trailer asks for more (a tampered member must not allocate gigabytes). */
const MAX_OUTPUT_CHUNK = 16 * 1024 * 1024;

/**
 * The member's bytes uncompressed, into one output buffer of the size its gzip trailer records
 * (ISIZE, plus the byte that shows the stream ended): a third less CPU than zlib's 16 KB pieces
 * joined at the end (bench/LOG.md). The trailer only sizes the buffer: a wrong one costs time,
 * never bytes.
 */
export function gunzip(stored: Uint8Array): Buffer {
  return zlib.gunzipSync(stored, { chunkSize: gunzipChunkSize(stored) });
}

/** The output buffer `gunzip` asks zlib for: the trailer's size plus one, within zlib's least and MAX_OUTPUT_CHUNK. */
export function gunzipChunkSize(stored: Uint8Array): number {
  const recorded =
    stored.length >= 4 ? Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength).readUInt32LE(stored.length - 4) : 0;
  return Math.max(zlib.constants.Z_MIN_CHUNK, Math.min(recorded + 1, MAX_OUTPUT_CHUNK));
}
