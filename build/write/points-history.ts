/**
 * Stage 6, write the points histories: one ordered stream of every participant's days
 * (build/compute/points-history.ts), a wallet's rows contiguous by season then day, collected here
 * as numbers into batches (history-rows.ts) that the writer pool's document threads write as
 * documents, on both cores, and hand to its file thread, which writes `points/history.json` beside
 * the wallet's `points.json`. Only a few batches are ever held in memory.
 */
import { forEachChunk } from '../stream.ts';
import type { DuckDBVector } from '@duckdb/node-api';
import type { Database } from '../database.ts';
import { POINTS_HISTORY_ROWS_SQL } from '../compute/points-history.ts';
import { countParticipants, seasonFactsOf } from '../compute/points.ts';
import { PointsStage, type PointsWriteOptions, type PointsWriteResult } from './points-stage.ts';
import type { WriterPool } from './writer-pool.ts';
import { HistoryRowsBuilder } from './history-rows.ts';

/** A batch is handed over at this many wallets or this many days (a season of days is about 12 KB of text). */
const BATCH_WALLETS = 4_000;
const BATCH_DAYS = 200_000;

/** Streams the histories into `pool`, waits for every file, then stops the pool's document threads. */
export async function writePointsHistory(db: Database, pool: WriterPool, options: PointsWriteOptions): Promise<PointsWriteResult> {
  const facts = seasonFactsOf(options.leaderboards);
  const asOf: Record<number, string> = {};
  for (const [season, fact] of facts) if (fact.asOf !== null) asOf[season] = fact.asOf;
  let batch = new HistoryRowsBuilder(asOf);
  const stage = new PointsStage<HistoryRowsBuilder>(
    pool,
    'points histories',
    await countParticipants(db, options.shard),
    options.progress,
    (full, sample) => pool.submitHistories(full.take(), sample),
  );
  try {
    const result = await db.connection.stream(POINTS_HISTORY_ROWS_SQL);
    let wallet: string | null = null;
    let walletSeason = -1;
    await forEachChunk(result, options.signal, async (chunk, count) => {
      const [keys, addresses, seasons, days, points, totals, ranks] = [0, 1, 2, 3, 4, 5, 6].map((column) =>
        chunk.getColumnVector(column),
      ) as [
        DuckDBVector<number>,
        DuckDBVector<string>,
        DuckDBVector<number>,
        DuckDBVector<number>,
        DuckDBVector<number>,
        DuckDBVector<number>,
        DuckDBVector<number | null>,
      ];
      for (let row = 0; row < count; row++) {
        const key = keys.getItem(row)!;
        if (key !== walletSeason) {
          // A new wallet-season: the keys follow the address, then the season.
          walletSeason = key;
          const address = addresses.getItem(row)!;
          if (address !== wallet) {
            if (batch.walletCount >= BATCH_WALLETS || batch.dayCount >= BATCH_DAYS) {
              await stage.submit(batch);
              batch = new HistoryRowsBuilder(asOf);
            }
            wallet = address;
            batch.startWallet(address);
          }
          batch.startSeason(seasons.getItem(row)!);
        }
        batch.addDay(days.getItem(row)!, points.getItem(row)!, totals.getItem(row)!, ranks.getItem(row));
      }
    });
    if (batch.walletCount > 0) await stage.submit(batch);
    await pool.drain();
  } finally {
    await pool.stopDocumentThreads();
  }
  return stage.result();
}
