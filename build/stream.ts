/**
 * The one way the build reads a large result: chunk by chunk, never the whole result in memory,
 * stopping at the next chunk when the build is interrupted; and the one check that a stream
 * reached every row it should have. A DuckDB stream that ends early does so without an error (an
 * appender's first flush on the streaming connection once ended it some 200,000 rows in, and
 * later wallets got no totals), and a tree missing wallets must not be published.
 */
import type { DuckDBDataChunk } from '@duckdb/node-api';

export interface ChunkSource {
  fetchChunk(): Promise<DuckDBDataChunk | null>;
}

/** Calls `each` with every non-empty chunk of `source` and its row count, in order; returns the rows read. */
export async function forEachChunk(
  source: ChunkSource,
  signal: AbortSignal | null,
  each: (chunk: DuckDBDataChunk, rows: number) => void | Promise<void>,
): Promise<number> {
  let read = 0;
  for (;;) {
    if (signal?.aborted) throw signal.reason;
    const chunk = await source.fetchChunk();
    // rowCount is a call into DuckDB: read once per chunk, not once per row.
    const rows = chunk ? chunk.rowCount : 0;
    if (!chunk || rows === 0) return read;
    read += rows;
    await each(chunk, rows);
  }
}

/** Refuses a stream that reached fewer (or more) items than it should have: a bug, never a shorter tree. */
export function expectStreamReached(reached: number, expected: number, what: string): void {
  if (reached !== expected) throw new Error(`the stream of ${what} ended after ${reached} of ${expected}`);
}
