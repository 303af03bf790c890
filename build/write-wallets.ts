/**
 * Stage 4, write the wallets: one ordered stream over the snapshots table. A wallet's rows are
 * contiguous, so when its last row has passed both of its documents are assembled (history, then
 * daily) and handed to the writer; only one wallet is ever held in memory.
 */
import path from 'node:path';
import type { Database } from './database.ts';
import type { Shard } from './config.ts';
import type { FileWriter } from './file-writer.ts';
import type { Progress } from './progress.ts';
import { historyDocument, type TokenSeries } from './compute-history.ts';
import { dailyDocument, type DailyStats, type PriceBook } from './compute-daily.ts';
import { dayText } from './days.ts';
import { shardFilterSql } from './shard.ts';
import { dailyFile, portfolioFile } from '../tree/layout.ts';

export interface WalletWriteOptions {
  shard: Shard | null;
  dailyAsOf: string | null;
  lastDay: number;
  prices: PriceBook;
  stats: DailyStats;
  progress: Progress;
  signal: AbortSignal;
  /** Called with a few of the documents, for a schema spot check during the build. */
  sample?: (wallet: string, history: string, daily: string) => void;
}

const SAMPLE_EVERY = 1000;

export async function writeWallets(db: Database, writer: FileWriter, options: WalletWriteOptions): Promise<number> {
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

  let done = 0;
  let wallet: string | null = null;
  let series: TokenSeries[] = [];
  const flush = async () => {
    if (wallet === null) return;
    const history = historyDocument(series, dayText);
    const daily = dailyDocument(series, options.dailyAsOf, options.lastDay, options.prices, options.stats);
    if (done % SAMPLE_EVERY === 0) options.sample?.(wallet, history, daily);
    await writer.writeGroup(path.posix.dirname(dailyFile(wallet)), [
      [portfolioFile(wallet), history],
      [dailyFile(wallet), daily],
    ]);
    done++;
    options.progress.tick(done, total, 'wallets');
  };

  for (;;) {
    if (options.signal.aborted) throw options.signal.reason;
    const chunk = await result.fetchChunk();
    if (!chunk || chunk.rowCount === 0) break;
    const [wallets, chains, tokens, days, timestamps, balances] = chunk.getColumns() as [
      string[], string[], number[], number[], number[], string[],
    ];
    for (let row = 0; row < chunk.rowCount; row++) {
      if (wallets[row] !== wallet) {
        await flush();
        wallet = wallets[row]!;
        series = [];
      }
      let current = series[series.length - 1];
      if (!current || current.chainId !== chains[row] || current.tokenIndex !== tokens[row]) {
        current = { chainId: chains[row]!, tokenIndex: tokens[row]!, days: [], timestamps: [], balances: [] };
        series.push(current);
      }
      current.days.push(days[row]!);
      current.timestamps.push(timestamps[row]!);
      current.balances.push(balances[row]!);
    }
  }
  await flush();
  return done;
}
