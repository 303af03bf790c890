/**
 * The threads that turn batches into files: document threads (document-thread.ts) assemble,
 * round-robin, and pass their buffers straight to one file thread (file-thread.ts), which
 * writes them and reports each batch here. At most two batches per document thread are in
 * flight (counted until written), so the streaming side waits instead of queuing documents.
 */
import { MessageChannel, Worker } from 'node:worker_threads';
import { UserError } from '../../core/errors.ts';
import { transferList, type WalletBatch } from './wallet-batch.ts';
import { InBatchOrder } from './manifest-order.ts';
import type { DocumentRequest, DocumentSetup } from './document-thread.ts';
import type { FileReply, FileRequest } from './file-thread.ts';

const PENDING_PER_THREAD = 2;

const startThread = (module: string) => new Worker(new URL('./thread-entry.js', import.meta.url), { workerData: { module } });

export class WriterPool {
  files = 0;
  bytes = 0;
  positionsWithoutPrice = 0;
  private readonly fileThread: Worker;
  private readonly documentThreads: { worker: Worker; pending: number }[];
  private readonly waiting = new Map<number, { thread: { pending: number }; resolve: () => void }>();
  private readonly inFlight = new Set<Promise<void>>();
  private nextThread = 0;
  private nextId = 0;
  private failure: Error | null = null;
  private readonly manifestLines: InBatchOrder | null;

  constructor(documentThreads: number, root: string, setup: DocumentSetup, onManifestLines?: (lines: string) => void) {
    this.manifestLines = onManifestLines ? new InBatchOrder(onManifestLines) : null;
    this.fileThread = startThread('./file-thread.ts');
    this.fileThread.postMessage({ type: 'setup', root } satisfies FileRequest);
    this.fileThread.on('message', (reply: FileReply) => this.settle(reply));
    this.fileThread.on('error', (error) => this.fail(error));
    this.documentThreads = Array.from({ length: documentThreads }, () => {
      const worker = startThread('./document-thread.ts');
      const channel = new MessageChannel();
      worker.postMessage({ type: 'setup', setup, files: channel.port1 } satisfies DocumentRequest, [channel.port1]);
      this.fileThread.postMessage({ type: 'documents', port: channel.port2 } satisfies FileRequest, [channel.port2]);
      worker.on('error', (error) => this.fail(error));
      return { worker, pending: 0 };
    });
  }

  /** Hands a batch to the next document thread, waiting while it has two batches unwritten. */
  async submit(batch: WalletBatch, sample: boolean): Promise<void> {
    this.throwIfFailed();
    const thread = this.documentThreads[this.nextThread++ % this.documentThreads.length]!;
    while (thread.pending >= PENDING_PER_THREAD) {
      await Promise.race(this.inFlight);
      this.throwIfFailed();
    }
    const id = this.nextId++;
    thread.pending++;
    const task = new Promise<void>((resolve) => {
      this.waiting.set(id, { thread, resolve });
      thread.worker.postMessage({ type: 'batch', id, batch, sample } satisfies DocumentRequest, transferList(batch));
    });
    this.inFlight.add(task);
    void task.finally(() => this.inFlight.delete(task));
  }

  /** Waits for every batch to be written, then stops the threads. */
  async close(): Promise<void> {
    try {
      await Promise.all(this.inFlight);
      this.throwIfFailed();
    } finally {
      await Promise.all([this.fileThread, ...this.documentThreads.map((thread) => thread.worker)].map((worker) => worker.terminate()));
    }
  }

  private settle(reply: FileReply): void {
    const entry = this.waiting.get(reply.id);
    if (!entry) return;
    this.waiting.delete(reply.id);
    entry.thread.pending--;
    if (reply.failure !== null) {
      this.failure ??= reply.failure.startsWith('user:') ? new UserError(reply.failure.slice(5)) : new Error(`wallet document or file thread: ${reply.failure}`);
    } else {
      this.files += reply.files;
      this.bytes += reply.bytes;
      this.positionsWithoutPrice += reply.positionsWithoutPrice;
      this.manifestLines?.release(reply.id, reply.manifestLines);
    }
    entry.resolve();
  }

  /** A thread that died: every waiting batch is settled so that nothing hangs. */
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
