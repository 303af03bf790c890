/**
 * Stage 6, write the points histories: one ordered stream of every participant's days
 * (build/compute/points-history.ts), a wallet's rows contiguous by season then day, assembled here
 * into its document and packed into batches for the writer pool's file thread (writer-pool.ts),
 * which write `points/history.json` beside the wallet's `points.json`. Only a few batches are ever
 * held in memory.
 */
import { forEachChunk } from '../stream.ts';
import type { DuckDBVector } from '@duckdb/node-api';
import type { Database } from '../database.ts';
import { POINTS_HISTORY_ROWS_SQL } from '../compute/points-history.ts';
import { countParticipants, seasonFactsOf } from '../compute/points.ts';
import { checkSamplePointsHistory } from './check-output.ts';
import { dayText } from '../compute/days.ts';
import { PointsStage, type PointsWriteOptions, type PointsWriteResult } from './points-stage.ts';
import type { WriterPool } from './writer-pool.ts';
import type { PointsBatch } from './file-thread.ts';

/** A batch is handed over at this many wallets or this many bytes (a season of days is about 12 KB). */
const BATCH_WALLETS = 4_000;
const BATCH_BYTES = 4_000_000;

/** Streams the histories into `pool` and waits for every file (the pool stays until the build stops). */
export async function writePointsHistory(db: Database, pool: WriterPool, options: PointsWriteOptions): Promise<PointsWriteResult> {
  const facts = seasonFactsOf(options.leaderboards);
  const dates = new Map<number, string>();
  /** `YYYY-MM-DD` of a day number (days since 1970-01-01); a season has a few hundred. */
  const dateOf = (day: number) => {
    let date = dates.get(day);
    if (date === undefined) {
      date = dayText(day);
      dates.set(day, date);
    }
    return date;
  };
  const stage = new PointsStage<HistoryBatch>(
    pool,
    'points histories',
    await countParticipants(db, options.shard),
    options.progress,
    (first) => checkSamplePointsHistory(first.wallets[0]!, first.document(0)),
  );
  let batch = new HistoryBatch();
  const submit = async () => {
    await stage.submit(batch);
    batch = new HistoryBatch();
  };
  try {
    const result = await db.connection.stream(POINTS_HISTORY_ROWS_SQL);
    let wallet: string | null = null;
    let walletSeason = -1;
    /** Closes the wallet's document, left open after its last day. */
    const finishWallet = () => {
      if (wallet !== null) batch.endDocument(wallet, ']}]}');
    };
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
        // String() writes each number as JSON.stringify does, like the leaderboard.
        const day = `{"date":"${dateOf(days.getItem(row)!)}","points":${String(points.getItem(row)!)},"totalPoints":${String(totals.getItem(row)!)},"rank":${String(ranks.getItem(row))}}`;
        if (key === walletSeason) {
          batch.write(`,${day}`);
          continue;
        }
        // A new wallet-season: the keys follow the address, then the season.
        walletSeason = key;
        const address = addresses.getItem(row)!;
        const season = seasons.getItem(row)!;
        if (address !== wallet) {
          finishWallet();
          if (batch.walletCount >= BATCH_WALLETS || batch.length >= BATCH_BYTES) await submit();
          wallet = address;
          batch.write(`{"seasons":[${seasonHead(season)}${day}`);
        } else {
          batch.write(`]},${seasonHead(season)}${day}`);
        }
      }
    });
    finishWallet();
    if (batch.walletCount > 0) await submit();
  } finally {
    await pool.drain();
  }
  return stage.result();

  function seasonHead(number: number): string {
    return `{"season":${number},"asOf":"${facts.get(number)!.asOf}","days":[`;
  }
}

/**
 * A batch's documents written straight into one buffer as they are assembled (ASCII: a character
 * is a byte), the buffer then handed to the file thread as it is: a document built up as a string
 * of a few hundred pieces first cost more in garbage collection than all the rest of the stage.
 */
class HistoryBatch {
  readonly wallets: string[] = [];
  private readonly ends: number[] = [];
  private buffer = Buffer.from(new ArrayBuffer(BATCH_BYTES + 65_536));
  length = 0;

  get walletCount(): number {
    return this.wallets.length;
  }

  write(text: string): void {
    if (this.length + text.length > this.buffer.length) {
      const larger = Buffer.from(new ArrayBuffer(Math.max(2 * this.buffer.length, this.length + text.length)));
      this.buffer.copy(larger, 0, 0, this.length);
      this.buffer = larger;
    }
    this.length += this.buffer.write(text, this.length, 'latin1');
  }

  endDocument(wallet: string, closing: string): void {
    this.write(closing);
    this.wallets.push(wallet);
    this.ends.push(this.length);
  }

  document(index: number): string {
    return this.buffer.toString('latin1', index === 0 ? 0 : this.ends[index - 1]!, this.ends[index]!);
  }

  take(id: number): PointsBatch {
    // The folders exist: the points stage wrote each participant's points file.
    return {
      id,
      kind: 'history',
      wallets: this.wallets,
      newFolders: new Uint8Array(this.wallets.length),
      ends: Uint32Array.from(this.ends),
      bytes: this.buffer.buffer as ArrayBuffer,
    };
  }
}
