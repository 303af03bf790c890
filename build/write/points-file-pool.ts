import { Worker } from 'node:worker_threads';
import type { PointsBatch, PointsFileReply, PointsFileRequest } from './points-file-thread.ts';
import { InBatchOrder } from './manifest-order.ts';
import type { Progress } from '../../core/progress.ts';
import type { Shard } from '../../core/shard.ts';
import type { Leaderboard } from '../../schemas/leaderboard.ts';

const PENDING_PER_THREAD = 2;

/**
 * The points file threads (points-file-thread.ts), writing the points standings, then the points
 * histories (each batch says which), handed batches round-robin, at most two unwritten per thread;
 * batches are numbered here in submission order and their manifest lines released in that order,
 * so that two builds write the same manifest. The build starts the pool before the wallet stage, so that the threads'
 * start-up (about 0.2 s, loading TypeScript) overlaps that stage instead of adding to the build.
 */
export class PointsFilePool {
  files = 0;
  bytes = 0;
  private readonly threads: { worker: Worker; pending: number }[];
  private readonly waiting = new Map<number, { thread: { pending: number }; resolve: () => void }>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly manifestLines: InBatchOrder | null;
  private nextThread = 0;
  private batches = 0;
  private failure: Error | null = null;

  constructor(count: number, root: string, onManifestLines?: (lines: string) => void) {
    this.manifestLines = onManifestLines ? new InBatchOrder(onManifestLines) : null;
    this.threads = Array.from({ length: count }, () => {
      const worker = new Worker(new URL('./thread-entry.js', import.meta.url), { workerData: { module: './points-file-thread.ts' } });
      worker.postMessage({ type: 'setup', root, manifest: Boolean(onManifestLines) } satisfies PointsFileRequest);
      worker.on('message', (reply: PointsFileReply) => this.settle(reply));
      worker.on('error', (error) => this.fail(error));
      return { worker, pending: 0 };
    });
  }

  /** The id of the next batch: its place in the manifest. */
  nextBatchId(): number {
    return this.batches++;
  }

  async submit(batch: PointsBatch): Promise<void> {
    this.throwIfFailed();
    const thread = this.threads[this.nextThread++ % this.threads.length]!;
    while (thread.pending >= PENDING_PER_THREAD) {
      await Promise.race(this.inFlight);
      this.throwIfFailed();
    }
    thread.pending++;
    const task = new Promise<void>((resolve) => {
      this.waiting.set(batch.id, { thread, resolve });
      thread.worker.postMessage({ type: 'batch', batch } satisfies PointsFileRequest, [batch.bytes, batch.ends.buffer as ArrayBuffer, batch.newFolders.buffer as ArrayBuffer]);
    });
    this.inFlight.add(task);
    void task.finally(() => this.inFlight.delete(task));
  }

  /** Waits for every batch submitted so far to be written; the threads stay for the next stage. */
  async drain(): Promise<void> {
    await Promise.all(this.inFlight);
    this.throwIfFailed();
  }

  /** Waits for every batch to be written, then stops the threads. */
  async close(): Promise<void> {
    try {
      await this.drain();
    } finally {
      await this.stop();
    }
  }

  /** Stops the threads at once (also after a failure elsewhere); stopping twice is harmless. */
  async stop(): Promise<void> {
    await Promise.all(this.threads.map((thread) => thread.worker.terminate()));
  }

  private settle(reply: PointsFileReply): void {
    const entry = this.waiting.get(reply.id);
    if (!entry) return;
    this.waiting.delete(reply.id);
    entry.thread.pending--;
    if (reply.failure !== null) {
      this.failure ??= new Error(`points file thread: ${reply.failure}`);
    } else {
      this.files += reply.files;
      this.bytes += reply.bytes;
      this.manifestLines?.release(reply.id, reply.manifestLines);
    }
    entry.resolve();
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const [id, entry] of this.waiting) {
      this.waiting.delete(id);
      entry.thread.pending--;
      entry.resolve();
    }
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure;
  }
}

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
 * One stage's batches into the pool (the standings, or the histories): numbered by the pool, one
 * in SAMPLE_EVERY_BATCHES checked by `checkFirst`, progress ticked, the stage's own files and bytes
 * counted; `result` refuses a stream that ended before every participant (a stream that ends early
 * does so without an error, see build/compute/leaderboards.ts, and a tree missing participants must
 * not be published).
 */
export class PointsStage<B extends { walletCount: number; take(id: number): PointsBatch }> {
  private done = 0;
  private batches = 0;
  private readonly filesBefore: number;
  private readonly bytesBefore: number;

  constructor(
    private readonly pool: PointsFilePool,
    private readonly documents: string,
    private readonly total: number,
    private readonly progress: Progress,
    private readonly checkFirst: (batch: B) => void,
  ) {
    this.filesBefore = pool.files;
    this.bytesBefore = pool.bytes;
  }

  async submit(batch: B): Promise<void> {
    if (this.batches++ % SAMPLE_EVERY_BATCHES === 0) this.checkFirst(batch);
    this.done += batch.walletCount;
    await this.pool.submit(batch.take(this.pool.nextBatchId()));
    this.progress.tick(this.done, this.total, 'participants');
  }

  /** Once the pool is drained. */
  result(): PointsWriteResult {
    if (this.done !== this.total) throw new Error(`the stream of ${this.documents} ended after ${this.done} of ${this.total} participants`);
    return { participants: this.done, files: this.pool.files - this.filesBefore, bytes: this.pool.bytes - this.bytesBefore };
  }
}
