/**
 * Stage 5, write the points standings: one ordered stream of every participant's season rows
 * (build/compute/points.ts), a wallet's rows contiguous, assembled here into its document and
 * packed into batches for the writer pool's file thread (writer-pool.ts). Only a few batches are
 * ever held in memory.
 */
import { forEachChunk } from '../stream.ts';
import type { DuckDBVector } from '@duckdb/node-api';
import type { Database } from '../database.ts';
import { PointsStandingSchema, type PointsStanding, type SeasonStanding } from '../../schemas/points.ts';
import { shardFilterSql } from '../../core/shard.ts';
import { countParticipants, seasonFactsOf, standingRow, standingsSql } from '../compute/points.ts';
import type { PointsBatch } from './file-thread.ts';
import { PointsStage, type PointsWriteOptions, type PointsWriteResult } from './points-stage.ts';
import type { WriterPool } from './writer-pool.ts';

/** Wallets per batch: about 400 KB of documents at two seasons each. */
const BATCH_WALLETS = 4_000;

/** Streams the standings into `pool` and waits for every file (the pool's file thread stays for the histories). */
export async function writePoints(db: Database, pool: WriterPool, options: PointsWriteOptions): Promise<PointsWriteResult> {
  const inShard = shardFilterSql(options.shard, 'p.address');
  const facts = seasonFactsOf(options.leaderboards);
  const stage = new PointsStage<BatchBuilder>(
    pool,
    'points standings',
    await countParticipants(db, options.shard),
    options.progress,
    async (batch, sample) => {
      if (sample) checkSample(batch.firstWallet, batch.firstDocument);
      await pool.submitPoints(batch.take(pool.nextBatchId()));
    },
  );
  let batch = new BatchBuilder();
  const submit = async () => {
    await stage.submit(batch);
    batch = new BatchBuilder();
  };
  try {
    const result = await db.connection.stream(standingsSql(inShard));
    let wallet: string | null = null;
    let newFolder = false;
    let rows: SeasonStanding[] = [];
    const finishWallet = () => {
      if (wallet !== null) batch.add(wallet, newFolder, pointsDocument(rows));
    };
    await forEachChunk(result, options.signal, async (chunk, count) => {
      const [addresses, seasons, ranks, totals, dailies, newFolders] = [0, 1, 2, 3, 4, 5].map((column) =>
        chunk.getColumnVector(column),
      ) as [
        DuckDBVector<string>,
        DuckDBVector<number>,
        DuckDBVector<number>,
        DuckDBVector<number>,
        DuckDBVector<number>,
        DuckDBVector<boolean>,
      ];
      for (let row = 0; row < count; row++) {
        const address = addresses.getItem(row)!;
        if (address !== wallet) {
          finishWallet();
          if (batch.walletCount >= BATCH_WALLETS) await submit();
          wallet = address;
          newFolder = newFolders.getItem(row)!;
          rows = [];
        }
        rows.push(standingRow(facts, seasons.getItem(row)!, ranks.getItem(row)!, totals.getItem(row)!, dailies.getItem(row)!));
      }
    });
    finishWallet();
    if (batch.walletCount > 0) await submit();
  } finally {
    await pool.drain();
  }
  return stage.result();
}

function checkSample(wallet: string, document: string): void {
  const check = PointsStandingSchema.safeParse(JSON.parse(document));
  if (!check.success) throw new Error(`points standing of ${wallet} does not match its schema: ${check.error.message}`);
}

/** Collects a batch's documents as text; one buffer is made when it is handed over. */
class BatchBuilder {
  private readonly wallets: string[] = [];
  private readonly documents: string[] = [];
  private readonly newFolders: number[] = [];

  get walletCount(): number {
    return this.wallets.length;
  }

  get firstWallet(): string {
    return this.wallets[0]!;
  }

  get firstDocument(): string {
    return this.documents[0]!;
  }

  add(wallet: string, newFolder: boolean, document: string): void {
    this.wallets.push(wallet);
    this.documents.push(document);
    this.newFolders.push(newFolder ? 1 : 0);
  }

  take(id: number): PointsBatch {
    const ends = new Uint32Array(this.documents.length);
    let end = 0;
    this.documents.forEach((document, i) => (ends[i] = end += document.length));
    const bytes = Buffer.from(this.documents.join(''), 'latin1');
    // A buffer of its own (not a slice of Node's pool), so that it can be transferred.
    const owned = new ArrayBuffer(bytes.length);
    new Uint8Array(owned).set(bytes);
    return { id, kind: 'standing', wallets: this.wallets, newFolders: Uint8Array.from(this.newFolders), ends, bytes: owned };
  }
}

/** The document's text: JSON.stringify writes each number as String() does, like the leaderboard. */
function pointsDocument(seasons: SeasonStanding[]): string {
  return JSON.stringify({ seasons } satisfies PointsStanding);
}
