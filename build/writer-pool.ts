/**
 * A pool of wallet writer threads (wallet-writer.ts). Batches go round-robin; a thread holds at
 * most two batches at a time, so the streaming side waits instead of queuing documents in memory.
 */
import { Worker } from 'node:worker_threads';
import { UserError } from './errors.ts';
import { transferList, type WalletBatch } from './wallet-batch.ts';
import type { WriterReply, WriterSetup } from './wallet-writer.ts';

const PENDING_PER_THREAD = 2;

export class WriterPool {
  files = 0;
  bytes = 0;
  positionsWithoutPrice = 0;
  private readonly threads: { worker: Worker; pending: ((reply: WriterReply) => void)[] }[];
  private readonly inFlight = new Set<Promise<void>>();
  private next = 0;
  private failure: Error | null = null;

  constructor(size: number, setup: WriterSetup, private readonly onManifestLines?: (lines: string) => void) {
    this.threads = Array.from({ length: size }, () => {
      const worker = new Worker(new URL('./wallet-writer-thread.js', import.meta.url));
      const thread = { worker, pending: [] as ((reply: WriterReply) => void)[] };
      worker.on('message', (reply: WriterReply) => thread.pending.shift()?.(reply));
      worker.on('error', (error) => {
        this.failure ??= error;
        for (const resolve of thread.pending.splice(0)) resolve({ files: 0, bytes: 0, positionsWithoutPrice: 0, manifestLines: '', failure: error.message });
      });
      worker.postMessage({ type: 'setup', setup });
      return thread;
    });
  }

  /** Hands a batch to the next thread, waiting while it is busy. */
  async submit(batch: WalletBatch, sample: boolean): Promise<void> {
    this.throwIfFailed();
    const thread = this.threads[this.next++ % this.threads.length]!;
    while (thread.pending.length >= PENDING_PER_THREAD) {
      await Promise.race(this.inFlight);
      this.throwIfFailed();
    }
    const task = new Promise<WriterReply>((resolve) => {
      thread.pending.push(resolve);
      thread.worker.postMessage({ type: 'batch', batch, sample }, transferList(batch));
    }).then((reply) => {
      if (reply.failure !== null) {
        this.failure ??= reply.failure.startsWith('user:') ? new UserError(reply.failure.slice(5)) : new Error(`wallet writer thread: ${reply.failure}`);
        return;
      }
      this.files += reply.files;
      this.bytes += reply.bytes;
      this.positionsWithoutPrice += reply.positionsWithoutPrice;
      if (reply.manifestLines) this.onManifestLines?.(reply.manifestLines);
    });
    this.inFlight.add(task);
    void task.finally(() => this.inFlight.delete(task));
  }

  /** Waits for every batch, then stops the threads. */
  async close(): Promise<void> {
    try {
      await Promise.all(this.inFlight);
      this.throwIfFailed();
    } finally {
      await Promise.all(this.threads.map((thread) => thread.worker.terminate()));
    }
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure;
  }
}
