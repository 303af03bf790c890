import type { Progress } from '../../core/progress.ts';
import { expectStreamReached } from '../stream.ts';
import type { Shard } from '../../core/shard.ts';
import type { Leaderboard } from '../../schemas/leaderboard.ts';
import type { WriterPool } from './writer-pool.ts';

export interface PointsWriteOptions {
  shard: Shard | null;
  leaderboards: Leaderboard[];
  progress: Progress;
  signal: AbortSignal;
}

export interface PointsWriteResult {
  participants: number;
  files: number;
  bytes: number;
}

/** One batch in this many has its first document checked against the schema. */
const SAMPLE_EVERY_BATCHES = 10;

/**
 * One points stage's batches into the writer pool (the standings, or the histories): numbered by
 * the pool, one in SAMPLE_EVERY_BATCHES checked by `checkFirst`, progress ticked, the stage's own
 * files and bytes counted; `result` refuses a stream that ended before every participant (a stream
 * that ends early does so without an error, see build/compute/leaderboards.ts, and a tree missing
 * participants must not be published).
 */
export class PointsStage<B extends { walletCount: number }> {
  private done = 0;
  private batches = 0;
  private readonly filesBefore: number;
  private readonly bytesBefore: number;

  /** `send`: hands a batch on (`sample`: its first document is to be checked against its schema). */
  constructor(
    private readonly pool: WriterPool,
    private readonly documents: string,
    private readonly total: number,
    private readonly progress: Progress,
    private readonly send: (batch: B, sample: boolean) => Promise<void>,
  ) {
    this.filesBefore = pool.files;
    this.bytesBefore = pool.bytes;
  }

  async submit(batch: B): Promise<void> {
    const sample = this.batches++ % SAMPLE_EVERY_BATCHES === 0;
    this.done += batch.walletCount;
    await this.send(batch, sample);
    this.progress.tick(this.done, this.total, 'participants');
  }

  /** Once the pool is drained. */
  result(): PointsWriteResult {
    expectStreamReached(this.done, this.total, `${this.documents} (participants)`);
    return { participants: this.done, files: this.pool.files - this.filesBefore, bytes: this.pool.bytes - this.bytesBefore };
  }
}
