/**
 * Stage 4, write the wallets: one ordered stream over the snapshots table. A wallet's rows are
 * contiguous, so wallets are packed into batches as their rows pass and handed to the writer
 * threads, which assemble both documents of each wallet (history, then daily) and write them.
 * Only a few batches are ever held in memory.
 */
import type { Database } from './database.ts';
import type { Shard } from './config.ts';
import type { Progress } from './progress.ts';
import type { PriceBook } from './compute-daily.ts';
import { shardFilterSql } from './shard.ts';
import { WalletBatchBuilder } from './wallet-batch.ts';
import { WriterPool } from './writer-pool.ts';

export interface WalletWriteOptions {
  root: string;
  shard: Shard | null;
  dailyAsOf: string | null;
  lastDay: number;
  prices: PriceBook;
  writerThreads: number;
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

/** Big enough that handing a batch over is cheap next to writing it, small enough to keep memory flat. */
const BATCH_SNAPSHOTS = 20_000;
/** One batch in this many has its first wallet's documents checked against the schemas. */
const SAMPLE_EVERY_BATCHES = 10;

export async function writeWallets(db: Database, options: WalletWriteOptions): Promise<WalletWriteResult> {
  const where = shardFilterSql(options.shard, 'a.address');
  const [{ wallets: total } = { wallets: 0 }] = await db.rows<{ wallets: number }>(
    `SELECT count(DISTINCT s.wallet)::INTEGER AS wallets FROM snapshots s JOIN addresses a ON a.id = s.wallet WHERE ${where}`,
  );
  // Address ids are numbered in address order, so wallets arrive in address order.
  const result = await db.connection.stream(`
    SELECT a.address AS wallet, s.chain_id::VARCHAR AS chain_text, s.token_index, s.day, s.ts::DOUBLE AS ts, s.balance_text
    FROM snapshots s JOIN addresses a ON a.id = s.wallet
    WHERE ${where}
    ORDER BY s.wallet, s.chain_id, s.token_index, s.block_number, s.tx_first_log, s.tx`);

  const pool = new WriterPool(
    options.writerThreads,
    { root: options.root, dailyAsOf: options.dailyAsOf, lastDay: options.lastDay, prices: options.prices, manifest: Boolean(options.onManifestLines) },
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
    let wallet: string | null = null;
    let chain: string | null = null;
    let token = -1;
    for (;;) {
      if (options.signal.aborted) throw options.signal.reason;
      const chunk = await result.fetchChunk();
      if (!chunk || chunk.rowCount === 0) break;
      const [wallets, chains, tokens, days, timestamps, balances] = chunk.getColumns() as [
        string[], string[], number[], number[], number[], string[],
      ];
      for (let row = 0; row < chunk.rowCount; row++) {
        if (wallets[row] !== wallet) {
          if (builder.snapshotCount >= BATCH_SNAPSHOTS) await submit();
          wallet = wallets[row]!;
          builder.startWallet(wallet);
          chain = null;
        }
        if (chains[row] !== chain || tokens[row] !== token) {
          chain = chains[row]!;
          token = tokens[row]!;
          builder.startSeries(chain, token);
        }
        builder.addSnapshot(days[row]!, timestamps[row]!, balances[row]!);
      }
    }
    if (builder.walletCount > 0) await submit();
  } finally {
    await pool.close();
  }
  return { wallets: done, files: pool.files, bytes: pool.bytes, positionsWithoutPrice: pool.positionsWithoutPrice };
}
