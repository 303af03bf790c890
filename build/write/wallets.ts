/**
 * Stage 4, write the wallets: one ordered stream over the snapshots table (read in ranges of
 * wallets, see sliceStream). A wallet's rows are contiguous, so wallets are packed into batches
 * as their rows pass and handed to the writer pool (writer-pool.ts: document threads assemble,
 * one file thread writes). Only a few batches are ever held in memory.
 */
import { forEachChunk, expectStreamReached, IdCursor } from '../stream.ts';
import type { DuckDBConnection, DuckDBDataChunk, DuckDBResult, DuckDBVector } from '@duckdb/node-api';
import type { Database } from '../database.ts';
import type { Progress } from '../../core/progress.ts';
import type { PriceBook } from '../compute/wallet-series.ts';
import { type Shard, shardFilterSql } from '../../core/shard.ts';
import { chainIndexOfSeriesSql, seriesKeySql, tokenIndexOfSeriesSql, walletOfSeriesSql } from '../compute/series-key.ts';
import { WalletBatchBuilder, type AmountFormat } from './wallet-batch.ts';
import { limbColumnsSql } from '../compute/exact-amount.ts';
import { TOKEN_KEYS } from '../../schemas/token-keys.ts';
import type { WriterPool } from './writer-pool.ts';

export interface WalletWriteOptions {
  shard: Shard | null;
  dailyAsOf: string | null;
  lastDay: number;
  prices: PriceBook;
  progress: Progress;
  signal: AbortSignal;
}

export interface WalletWriteResult {
  wallets: number;
  files: number;
  bytes: number;
  positionsWithoutPrice: number;
}

/**
 * Big enough that handing a batch over is cheap next to writing it, small enough that memory
 * stays flat: a written batch's buffer is freed only when the file thread next collects garbage,
 * and a small batch (about 3 MB at 100k wallets) is still in the CPU's cache when it is copied
 * into the kernel (the figures against bigger batches: bench/LOG.md).
 */
const BATCH_SNAPSHOTS = 4_000;
/** One batch in this many has its first wallet's documents checked against the schemas. */
const SAMPLE_EVERY_BATCHES = 50;

/** Streams the wallets into `pool` and waits for every file (the document threads stay for the points histories). */
export async function writeWallets(db: Database, pool: WriterPool, options: WalletWriteOptions): Promise<WalletWriteResult> {
  const walletSql = walletOfSeriesSql('s.series');
  const inShard =
    options.shard === null ? 'true' : `${walletSql} IN (SELECT id FROM addresses WHERE ${shardFilterSql(options.shard, 'address')})`;
  const [{ wallets: total } = { wallets: 0 }] = await db.rows<{ wallets: number }>(
    `SELECT count(DISTINCT ${walletSql})::INTEGER AS wallets FROM snapshots s WHERE ${inShard}`,
  );
  const format = await loadAmountFormat(db);
  // Each wallet's address decoded once, not carried on every one of its rows.
  const addresses = await IdCursor.open(
    db,
    "the wallets' addresses",
    'SELECT id, address FROM addresses ORDER BY id',
    (columns, row) => columns[1]!.getItem(row) as string,
  );

  pool.setUpDocuments({ dailyAsOf: options.dailyAsOf, lastDay: options.lastDay, prices: options.prices, format });
  const [filesBefore, bytesBefore, unpricedBefore] = [pool.files, pool.bytes, pool.positionsWithoutPrice];
  let done = 0;
  let batches = 0;
  const builder = new WalletBatchBuilder();
  const submit = async () => {
    done += builder.walletCount;
    await pool.submitWallets(builder.take(), batches++ % SAMPLE_EVERY_BATCHES === 0);
    options.progress.tick(done, total, 'wallets');
  };
  let slices: SnapshotStream | null = null;
  try {
    slices = await sliceStream(db, inShard);
    let wallet = -1;
    let chain = -1;
    let token = -1;
    await forEachChunk(slices, options.signal, async (chunk, rows) => {
      const column = (index: number) => chunk.getColumnVector(index) as DuckDBVector<number>;
      const [wallets, chains, tokens, days, timestamps] = [column(0), column(1), column(2), column(3), column(4)];
      const [limbs3, limbs2, limbs1, limbs0] = [column(5), column(6), column(7), column(8)];
      for (let row = 0; row < rows; row++) {
        const rowWallet = wallets.getItem(row)!;
        if (rowWallet !== wallet) {
          if (builder.snapshotCount >= BATCH_SNAPSHOTS) await submit();
          wallet = rowWallet;
          builder.startWallet(await addresses.valueOf(wallet));
          chain = -1;
        }
        const rowChain = chains.getItem(row)!;
        const rowToken = tokens.getItem(row)!;
        if (rowChain !== chain || rowToken !== token) {
          chain = rowChain;
          token = rowToken;
          builder.startSeries(chain, token);
        }
        builder.addSnapshot(
          days.getItem(row)!,
          timestamps.getItem(row)!,
          limbs3.getItem(row)!,
          limbs2.getItem(row)!,
          limbs1.getItem(row)!,
          limbs0.getItem(row)!,
        );
      }
    });
    if (builder.walletCount > 0) await submit();
    await pool.drain();
    pool.portfoliosWritten();
  } finally {
    addresses.close();
    await slices?.close();
  }
  expectStreamReached(done, total, 'snapshots (wallets)');
  return {
    wallets: done,
    files: pool.files - filesBefore,
    bytes: pool.bytes - bytesBefore,
    positionsWithoutPrice: pool.positionsWithoutPrice - unpricedBefore,
  };
}

/**
 * The stream is cut into this many ranges of wallet ids, each sorted by a query of its own: the
 * first files are written after sorting a quarter of the snapshots instead of all of them, and
 * each next range is sorted on a second connection while the one before it is written (figures
 * against one sort and against 8 ranges: bench/LOG.md).
 */
const STREAM_SLICES = 4;

export interface SnapshotStream {
  /** The next chunk in (wallet, chain, token, transaction) order; null once every range is read. */
  fetchChunk(): Promise<DuckDBDataChunk | null>;
  /** Stops the ranges still being sorted, and waits for them before the connection goes. */
  close(): Promise<void>;
}

export async function sliceStream(db: Database, inShard: string): Promise<SnapshotStream> {
  const [{ last } = { last: 0 }] = await db.rows<{ last: number }>('SELECT coalesce(max(id), 0)::INTEGER AS last FROM addresses');
  const step = Math.ceil((last + 1) / STREAM_SLICES);
  const connections = [db.connection, await db.connect()];
  const sorting = new Map<Promise<DuckDBResult>, DuckDBConnection>();
  const start = (slice: number): Promise<DuckDBResult> => {
    const low = slice * step;
    // The last range's end is at or past the last id: step is rounded up.
    const high = (slice + 1) * step;
    const connection = connections[slice % 2]!;
    // Ordering by series key is ordering by wallet (so by address), chain, then token; `number`
    // is the transaction order within a series (build/compute/history.ts).
    const result = connection.stream(`
      SELECT ${walletOfSeriesSql('s.series')} AS wallet, ${chainIndexOfSeriesSql('s.series')} AS chain_index, ${tokenIndexOfSeriesSql('s.series')} AS token_index,
             s.day, s.ts::DOUBLE AS ts, ${limbColumnsSql('s.raw_balance')}
      FROM snapshots s
      WHERE s.series >= ${seriesKeySql(String(low), '0', '0')} AND s.series < ${seriesKeySql(String(high), '0', '0')} AND ${inShard}
      ORDER BY s.series, s.number`);
    // Settled here too, so that a failure before its turn does not count as unhandled.
    sorting.set(result, connection);
    const settled = () => void sorting.delete(result);
    result.then(settled, settled);
    return result;
  };
  let slice = 0;
  let current: Promise<DuckDBResult> | null = start(0);
  let next: Promise<DuckDBResult> | null = null;
  return {
    async fetchChunk() {
      while (current) {
        const result = await current;
        if (next === null && slice + 1 < STREAM_SLICES) next = start(slice + 1);
        const chunk = await result.fetchChunk();
        if (chunk && chunk.rowCount > 0) return chunk;
        slice++;
        current = next;
        next = null;
      }
      return null;
    },
    async close() {
      for (const connection of sorting.values()) connection.interrupt();
      await Promise.allSettled(sorting.keys());
      connections[1]!.disconnectSync();
    },
  };
}

/** The document threads get each chain's text by its index (build/compute/history.ts) and the decimals. */
async function loadAmountFormat(db: Database): Promise<AmountFormat> {
  const chains = await db.rows<{ chain_text: string }>('SELECT chain_text FROM chains ORDER BY chain_index');
  const tokens = await db.rows<{ chain_index: number; token_index: number; decimals: number }>(
    'SELECT c.chain_index, t.token_index::INTEGER AS token_index, t.decimals::INTEGER AS decimals FROM tokens t JOIN chains c ON c.chain_id = t.chain_id',
  );
  const decimals = new Array<number>(chains.length * TOKEN_KEYS.length).fill(-1);
  for (const token of tokens) decimals[token.chain_index * TOKEN_KEYS.length + token.token_index] = token.decimals;
  return { chains: chains.map((chain) => chain.chain_text), decimals };
}
