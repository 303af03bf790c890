/**
 * Stage 6, write the points histories: one ordered stream of every participant's days
 * (build/compute/points-history.ts), a wallet's rows contiguous by season then day, collected here
 * as numbers into batches (history-rows.ts) that the writer pool's document threads write as
 * documents, on both cores, and hand to its file thread, which writes `points/history.json` beside
 * the wallet's `points.json`. Only a few batches are ever held in memory.
 */
import { forEachChunk, IdCursor } from '../stream.ts';
import type { Database } from '../database.ts';
import { POINTS_HISTORY_ROWS_SQL, POINTS_HISTORY_WALLETS_SQL } from '../compute/points-history.ts';
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
  let walletSeasons: IdCursor<{ address: string; season: number }> | null = null;
  try {
    const seasons = await IdCursor.open(db, "the points histories' wallet-seasons", POINTS_HISTORY_WALLETS_SQL, (columns, row) => ({
      address: columns[1]!.getItem(row) as string,
      season: columns[2]!.getItem(row) as number,
    }));
    walletSeasons = seasons;
    const result = await db.connection.stream(POINTS_HISTORY_ROWS_SQL);
    let wallet: string | null = null;
    let walletSeason = -1;
    await forEachChunk(result, options.signal, async (chunk, count) => {
      // The number columns as DuckDB holds them (no value boxed), copied a season's run at a time.
      const numbers = <T>(column: number) => (chunk.getColumnVector(column) as unknown as { items: T }).items;
      const keys = numbers<Int32Array>(0);
      const columns = {
        days: numbers<Int32Array>(1),
        points: numbers<Float64Array>(2),
        totals: numbers<Float64Array>(3),
        ranks: numbers<Int32Array>(4),
      };
      let runStart = 0;
      for (let row = 0; row < count; row++) {
        const key = keys[row]!;
        if (key === walletSeason) continue;
        // A new wallet-season: the keys follow the address, then the season.
        if (row > runStart) batch.addDays(columns, runStart, row - runStart);
        runStart = row;
        walletSeason = key;
        const { address, season } = await seasons.valueOf(key);
        if (address !== wallet) {
          if (batch.walletCount >= BATCH_WALLETS || batch.dayCount >= BATCH_DAYS) {
            await stage.submit(batch);
            batch = new HistoryRowsBuilder(asOf);
          }
          wallet = address;
          batch.startWallet(address);
        }
        batch.startSeason(season);
      }
      if (count > runStart) batch.addDays(columns, runStart, count - runStart);
    });
    if (batch.walletCount > 0) await stage.submit(batch);
    await pool.drain();
  } finally {
    try {
      walletSeasons?.close();
    } finally {
      await pool.stopDocumentThreads();
    }
  }
  return stage.result();
}
