/**
 * The one way the build reads a large result: chunk by chunk, never the whole result in memory,
 * stopping at the next chunk when the build is interrupted; and the one check that a stream
 * reached every row it should have. A DuckDB stream that ends early does so without an error (an
 * appender's first flush on the streaming connection once ended it some 200,000 rows in, and
 * later wallets got no totals), and a tree missing wallets must not be published.
 */
import type { DuckDBConnection, DuckDBDataChunk, DuckDBResult, DuckDBVector } from '@duckdb/node-api';
import type { Database } from './database.ts';

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

/**
 * A small table's rows read in id order on a second connection, alongside a large stream ordered
 * by the same id: what each id carries (a wallet's address, a wallet-season's season) is decoded
 * once per id, and is neither carried nor sorted on every row of the large stream.
 */
export class IdCursor<T> {
  /** Held while its vectors are read: they point into the chunk's memory. */
  private chunk: DuckDBDataChunk | null = null;
  private columns: DuckDBVector[] = [];
  private row = 0;

  private constructor(
    private readonly connection: DuckDBConnection,
    private readonly what: string,
    private readonly result: DuckDBResult,
    private readonly read: (columns: DuckDBVector[], row: number) => T,
  ) {}

  /** `sql` selects the id (an INTEGER) first, ordered by it; `read` makes a value of the other columns; `what` names the rows. */
  static async open<T>(db: Database, what: string, sql: string, read: (columns: DuckDBVector[], row: number) => T): Promise<IdCursor<T>> {
    const connection = await db.connect();
    try {
      return new IdCursor(connection, what, await connection.stream(sql), read);
    } catch (error) {
      connection.disconnectSync();
      throw error;
    }
  }

  /** The value of `id`; ids must be asked for in ascending order. */
  async valueOf(id: number): Promise<T> {
    for (;;) {
      const rows = this.chunk?.rowCount ?? 0;
      for (; this.row < rows; this.row++) {
        const found = this.columns[0]!.getItem(this.row) as number;
        if (found === id) return this.read(this.columns, this.row);
        // The ids ascend: past `id`, it has no row (or was asked for out of order), a bug either way.
        if (found > id) throw new Error(`${this.what}: no row for id ${id}`);
      }
      const chunk = await this.result.fetchChunk();
      if (!chunk || chunk.rowCount === 0) throw new Error(`${this.what}: no row for id ${id}`);
      this.chunk = chunk;
      this.columns = Array.from({ length: chunk.columnCount }, (_, index) => chunk.getColumnVector(index));
      this.row = 0;
    }
  }

  close(): void {
    this.connection.disconnectSync();
  }
}
