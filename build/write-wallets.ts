/**
 * Stage 4, write the wallets: one ordered stream over the snapshots table. A wallet's rows are
 * contiguous, so wallets are packed into batches as their rows pass and handed to the writer
 * pool (document threads assemble, one file thread writes). Only a few batches are ever held in
 * memory.
 */
import type { DuckDBConnection, DuckDBDataChunk, DuckDBResult, DuckDBVector } from '@duckdb/node-api';
import type { Database } from './database.ts';
import type { Shard } from './config.ts';
import type { Progress } from './progress.ts';
import type { PriceBook } from './compute-daily.ts';
import { shardFilterSql } from './shard.ts';
import { chainIndexOfSeriesSql, tokenIndexOfSeriesSql, walletOfSeriesSql } from './series-key.ts';
import { WalletBatchBuilder, type AmountFormat } from './wallet-batch.ts';
import { limbColumnsSql } from './exact-amount.ts';
import { TOKEN_KEYS } from '../schemas/token-keys.ts';
import { WriterPool } from './writer-pool.ts';

export interface WalletWriteOptions {
  root: string;
  shard: Shard | null;
  dailyAsOf: string | null;
  lastDay: number;
  prices: PriceBook;
  documentThreads: number;
  progress: Progress;
  signal: AbortSignal;
  onManifestLines?: (lines: string) => void;
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
 * and a small batch (about 3 MB at SPEC 7's scale) is still in the CPU's cache when it is copied
 * into the kernel. Against 20,000 snapshots at 100k wallets: peak RSS 1.55 GB against 1.68 to
 * 1.84 GB, 1 to 2 fewer system CPU-seconds, the wallet stage 0.3 to 0.8 s slower into tmpfs and
 * within noise on ext4 (README, Scale).
 */
const BATCH_SNAPSHOTS = 4_000;
/** One batch in this many has its first wallet's documents checked against the schemas. */
const SAMPLE_EVERY_BATCHES = 50;

export async function writeWallets(db: Database, options: WalletWriteOptions): Promise<WalletWriteResult> {
  const walletSql = walletOfSeriesSql('s.series');
  const inShard = options.shard === null ? 'true' : `${walletSql} IN (SELECT id FROM addresses WHERE ${shardFilterSql(options.shard, 'address')})`;
  const [{ wallets: total } = { wallets: 0 }] = await db.rows<{ wallets: number }>(
    `SELECT count(DISTINCT ${walletSql})::INTEGER AS wallets FROM snapshots s WHERE ${inShard}`,
  );
  const format = await loadAmountFormat(db);
  // Ordering by series key is ordering by wallet (so by address), chain, then token; `number` is
  // the transaction order within a series (compute-history.ts).
  const result = await db.connection.stream(`
    SELECT ${walletSql} AS wallet, ${chainIndexOfSeriesSql('s.series')} AS chain_index, ${tokenIndexOfSeriesSql('s.series')} AS token_index,
           s.day, s.ts::DOUBLE AS ts, ${limbColumnsSql('s.raw_balance')}
    FROM snapshots s
    WHERE ${inShard}
    ORDER BY s.series, s.number`);
  const addresses = await AddressCursor.open(db);

  const pool = new WriterPool(
    options.documentThreads,
    options.root,
    { dailyAsOf: options.dailyAsOf, lastDay: options.lastDay, prices: options.prices, format, manifest: Boolean(options.onManifestLines) },
    options.onManifestLines,
  );
  let done = 0;
  let batches = 0;
  const builder = new WalletBatchBuilder();
  const submit = async () => {
    done += builder.walletCount;
    await pool.submit(builder.take(), batches++ % SAMPLE_EVERY_BATCHES === 0);
    options.progress.tick(done, total, 'wallets');
  };
  try {
    let wallet = -1;
    let chain = -1;
    let token = -1;
    for (;;) {
      if (options.signal.aborted) throw options.signal.reason;
      const chunk = await result.fetchChunk();
      if (!chunk || chunk.rowCount === 0) break;
      const column = (index: number) => chunk.getColumnVector(index) as DuckDBVector<number>;
      const [wallets, chains, tokens, days, timestamps] = [column(0), column(1), column(2), column(3), column(4)];
      const [limbs3, limbs2, limbs1, limbs0] = [column(5), column(6), column(7), column(8)];
      for (let row = 0; row < chunk.rowCount; row++) {
        const rowWallet = wallets.getItem(row)!;
        if (rowWallet !== wallet) {
          if (builder.snapshotCount >= BATCH_SNAPSHOTS) await submit();
          wallet = rowWallet;
          builder.startWallet(await addresses.addressOf(wallet));
          chain = -1;
        }
        const rowChain = chains.getItem(row)!;
        const rowToken = tokens.getItem(row)!;
        if (rowChain !== chain || rowToken !== token) {
          chain = rowChain;
          token = rowToken;
          builder.startSeries(chain, token);
        }
        builder.addSnapshot(days.getItem(row)!, timestamps.getItem(row)!, limbs3.getItem(row)!, limbs2.getItem(row)!, limbs1.getItem(row)!, limbs0.getItem(row)!);
      }
    }
    if (builder.walletCount > 0) await submit();
  } finally {
    addresses.close();
    await pool.close();
  }
  // A stream that ends early does so without an error (see compute-leaderboards.ts): a tree
  // missing wallets must not be published.
  if (done !== total) throw new Error(`the snapshot stream ended after ${done} of ${total} wallets`);
  return { wallets: done, files: pool.files, bytes: pool.bytes, positionsWithoutPrice: pool.positionsWithoutPrice };
}

/** The document threads get each chain's text by its index (compute-history.ts) and the decimals. */
async function loadAmountFormat(db: Database): Promise<AmountFormat> {
  const chains = await db.rows<{ chain_text: string }>('SELECT chain_text FROM chains ORDER BY chain_index');
  const tokens = await db.rows<{ chain_index: number; token_index: number; decimals: number }>(
    'SELECT c.chain_index, t.token_index::INTEGER AS token_index, t.decimals::INTEGER AS decimals FROM tokens t JOIN chains c ON c.chain_id = t.chain_id',
  );
  const decimals = new Array<number>(chains.length * TOKEN_KEYS.length).fill(-1);
  for (const token of tokens) decimals[token.chain_index * TOKEN_KEYS.length + token.token_index] = token.decimals;
  return { chains: chains.map((chain) => chain.chain_text), decimals };
}

/**
 * Addresses by id, read in id order on a second connection alongside the snapshot stream: each
 * wallet's address is decoded once instead of on every one of its rows.
 */
class AddressCursor {
  /** Held while its vectors are read: they point into the chunk's memory. */
  private chunk: DuckDBDataChunk | null = null;
  private ids: DuckDBVector<number> | null = null;
  private texts: DuckDBVector<string> | null = null;
  private row = 0;

  private constructor(private readonly connection: DuckDBConnection, private readonly result: DuckDBResult) {}

  static async open(db: Database): Promise<AddressCursor> {
    const connection = await db.connect();
    return new AddressCursor(connection, await connection.stream('SELECT id, address FROM addresses ORDER BY id'));
  }

  /** The address of `id`; ids must be asked for in ascending order. */
  async addressOf(id: number): Promise<string> {
    for (;;) {
      for (; this.row < (this.chunk?.rowCount ?? 0); this.row++) {
        if (this.ids!.getItem(this.row) === id) return this.texts!.getItem(this.row)!;
      }
      const chunk = await this.result.fetchChunk();
      if (!chunk || chunk.rowCount === 0) throw new Error(`no address for wallet id ${id}`);
      this.chunk = chunk;
      this.ids = chunk.getColumnVector(0) as DuckDBVector<number>;
      this.texts = chunk.getColumnVector(1) as DuckDBVector<string>;
      this.row = 0;
    }
  }

  close(): void {
    this.connection.disconnectSync();
  }
}
