/**
 * The build's one pool of writing threads, for every per-wallet file of the tree: document threads
 * (document-thread.ts) assemble the wallets' documents, round-robin, and pass their buffers
 * straight to the one file thread (file-thread.ts); the points stages assemble their documents on
 * the main thread and hand them to the file thread directly. The file thread writes each batch and
 * reports it here. At most two batches per document thread, and two points batches, are in flight
 * (counted until written), so the streaming side waits instead of queuing documents. Batches are numbered in submission order and
 * their manifest lines released in that order, so that two builds write the same manifest.
 *
 * The build starts the pool before the wallet stage; the document threads stop once the wallets
 * are written, the file thread when the build ends.
 */
import { MessageChannel, Worker } from 'node:worker_threads';
import { fromCrossing } from '../../core/errors.ts';
import { transferList, type WalletBatch } from './wallet-batch.ts';
import { historyTransferList, type HistoryRows } from './history-rows.ts';
import { InBatchOrder } from './manifest-order.ts';
import type { ThreadCache } from './thread-cache.ts';
import type { DocumentRequest, DocumentSetup } from './document-thread.ts';
import type { FileReply, FileRequest, PointsBatch } from './file-thread.ts';
import type { PackFacts } from './pack-file-writer.ts';

const PENDING_PER_THREAD = 2;

const FILE_THREAD = './file-thread.ts';
const DOCUMENT_THREAD = './document-thread.ts';

interface Thread {
  worker: Worker;
  module: string;
  /** Batches handed to this thread and not yet written. */
  pending: number;
}

export interface WriterPoolOptions {
  root: string;
  /** `build --packed`: the shard whose archives the file thread writes into `root` (pack-file-writer.ts); null writes files. */
  packed: { shard: { index: number; count: number } } | null;
  documentThreads: number;
  onManifestLines?: (lines: string) => void;
  /** Threads kept between the builds of one process (thread-cache.ts); none: they stop with the build. */
  threadCache?: ThreadCache;
}

export class WriterPool {
  files = 0;
  bytes = 0;
  positionsWithoutPrice = 0;
  private readonly fileThread: Thread;
  private documentThreads: Thread[];
  private readonly manifest: boolean;
  private readonly packed: boolean;
  private packFacts: PackFacts | null = null;
  private readonly manifestLines: InBatchOrder | null;
  private readonly waiting = new Map<number, { thread: Thread; resolve: () => void }>();
  private readonly inFlight = new Set<Promise<void>>();
  private nextThread = 0;
  private nextId = 0;
  private failure: Error | null = null;
  private readonly cache: ThreadCache | null;
  private stopped = false;

  constructor(options: WriterPoolOptions) {
    this.manifest = Boolean(options.onManifestLines);
    this.packed = options.packed !== null;
    this.manifestLines = options.onManifestLines ? new InBatchOrder(options.onManifestLines) : null;
    this.cache = options.threadCache ?? null;
    const startThread = (module: string) =>
      this.cache?.take(module) ?? new Worker(new URL('./thread-entry.js', import.meta.url), { workerData: { module } });
    this.fileThread = { worker: startThread(FILE_THREAD), module: FILE_THREAD, pending: 0 };
    this.fileThread.worker.postMessage({
      type: 'setup',
      root: options.root,
      manifest: this.manifest,
      packed: options.packed,
    } satisfies FileRequest);
    this.fileThread.worker.on('message', (reply: FileReply) => this.settle(reply));
    this.fileThread.worker.on('error', (error) => this.fail(error));
    this.documentThreads = Array.from({ length: options.documentThreads }, () => {
      const worker = startThread(DOCUMENT_THREAD);
      const channel = new MessageChannel();
      worker.postMessage({ type: 'port', files: channel.port1 } satisfies DocumentRequest, [channel.port1]);
      this.fileThread.worker.postMessage({ type: 'documents', port: channel.port2 } satisfies FileRequest, [channel.port2]);
      worker.on('error', (error) => this.fail(error));
      return { worker, module: DOCUMENT_THREAD, pending: 0 };
    });
  }

  /** What the document threads need to assemble wallets' documents; before the first wallet batch. */
  setUpDocuments(setup: Omit<DocumentSetup, 'manifest' | 'packed'>): void {
    for (const thread of this.documentThreads) {
      thread.worker.postMessage({
        type: 'setup',
        setup: { ...setup, manifest: this.manifest, packed: this.packed },
      } satisfies DocumentRequest);
    }
  }

  /** Hands a wallet batch to the next document thread, waiting while it has two batches unwritten. */
  async submitWallets(batch: WalletBatch, sample: boolean): Promise<void> {
    if (this.documentThreads.length === 0) throw new Error('the document threads have stopped');
    const thread = this.documentThreads[this.nextThread++ % this.documentThreads.length]!;
    await this.dispatch(thread, this.nextBatchId(), (id) =>
      thread.worker.postMessage({ type: 'batch', id, batch, sample } satisfies DocumentRequest, transferList(batch)),
    );
  }

  /** Once the wallets are written: the document threads let go of what only the wallets' documents need. */
  portfoliosWritten(): void {
    for (const thread of this.documentThreads) thread.worker.postMessage({ type: 'portfolios written' } satisfies DocumentRequest);
  }

  /** Hands a batch of points-history rows to the next document thread, which writes their documents (history-rows.ts). */
  async submitHistories(rows: HistoryRows, sample: boolean): Promise<void> {
    if (this.documentThreads.length === 0) throw new Error('the document threads have stopped');
    const thread = this.documentThreads[this.nextThread++ % this.documentThreads.length]!;
    await this.dispatch(thread, this.nextBatchId(), (id) =>
      thread.worker.postMessage({ type: 'histories', id, rows, sample } satisfies DocumentRequest, historyTransferList(rows)),
    );
  }

  /** The id of the next batch: its place in the manifest (a points batch carries it). */
  nextBatchId(): number {
    return this.nextId++;
  }

  /** Hands an assembled points batch to the file thread, waiting while it has two such batches unwritten. */
  async submitPoints(batch: PointsBatch): Promise<void> {
    await this.dispatch(this.fileThread, batch.id, () =>
      this.fileThread.worker.postMessage({ type: 'points', batch } satisfies FileRequest, [
        batch.bytes,
        batch.ends.buffer as ArrayBuffer,
        batch.newFolders.buffer as ArrayBuffer,
      ]),
    );
  }

  /** Packed builds: files that are not per-wallet documents, members in the order given (the caller records them). */
  async submitFiles(files: { path: string; bytes: Uint8Array }[]): Promise<void> {
    if (!this.packed) throw new Error('only a packed build hands its shared files to the file thread');
    await this.dispatch(this.fileThread, this.nextBatchId(), (id) =>
      this.fileThread.worker.postMessage({ type: 'files', batch: { id, files } } satisfies FileRequest),
    );
  }

  /** Packed builds, once every file is submitted: the last archive closed, the index and manifest written. */
  async finishPack(): Promise<PackFacts> {
    await this.drain();
    await this.dispatch(this.fileThread, this.nextBatchId(), (id) =>
      this.fileThread.worker.postMessage({ type: 'finish', id } satisfies FileRequest),
    );
    await this.drain();
    if (!this.packFacts) throw new Error('the file thread finished the pack without its facts');
    return this.packFacts;
  }

  /** Waits for every batch submitted so far to be written. */
  async drain(): Promise<void> {
    await Promise.all(this.inFlight);
    this.throwIfFailed();
  }

  /** Once the points histories are written: the document threads' memory (price book, buffers) is not needed by the later stages. */
  async stopDocumentThreads(): Promise<void> {
    const threads = this.documentThreads;
    this.documentThreads = [];
    await Promise.all(threads.map((thread) => this.release(thread)));
    // Batches they still held (the stage failed) will never be written.
    this.abandon(new Error('the document threads were stopped with wallet batches unwritten'), (thread) => threads.includes(thread));
  }

  /** Stops every thread at once (also after a failure elsewhere); stopping twice is harmless. */
  async stop(): Promise<void> {
    await this.stopDocumentThreads();
    if (this.stopped) return;
    this.stopped = true;
    await this.release(this.fileThread);
  }

  /** A thread of a build that did not fail, with nothing in flight, goes back to the cache, emptied; any other stops. */
  private async release(thread: Thread): Promise<void> {
    if (this.cache && this.failure === null && thread.pending === 0) {
      thread.worker.postMessage({ type: 'reset' } satisfies FileRequest | DocumentRequest);
      this.cache.give(thread.module, thread.worker);
      return;
    }
    await thread.worker.terminate();
  }

  private async dispatch(thread: Thread, id: number, post: (id: number) => void): Promise<void> {
    this.throwIfFailed();
    while (thread.pending >= PENDING_PER_THREAD) {
      await Promise.race(this.inFlight);
      this.throwIfFailed();
    }
    thread.pending++;
    const task = new Promise<void>((resolve) => {
      this.waiting.set(id, { thread, resolve });
      post(id);
    });
    this.inFlight.add(task);
    void task.finally(() => this.inFlight.delete(task));
  }

  private settle(reply: FileReply): void {
    const entry = this.waiting.get(reply.id);
    if (!entry) return;
    this.waiting.delete(reply.id);
    entry.thread.pending--;
    if (reply.failure !== null) {
      // A user error keeps its message and exit code; a system error (a refused write) its code and stack.
      this.failure ??= fromCrossing(reply.failure, 'document or file thread');
    } else {
      this.files += reply.files;
      this.bytes += reply.bytes;
      this.positionsWithoutPrice += reply.positionsWithoutPrice;
      this.manifestLines?.release(reply.id, reply.manifestLines);
      if (reply.pack) this.packFacts = reply.pack;
    }
    entry.resolve();
  }

  /** A thread that died: every waiting batch is settled so that nothing hangs. */
  private fail(error: Error): void {
    this.failure ??= error;
    this.abandon(error, () => true);
  }

  /** Settles the waiting batches of the threads `of` selects, which will never be written, as failed by `error`. */
  private abandon(error: Error, of: (thread: Thread) => boolean): void {
    for (const [id, entry] of this.waiting) {
      if (!of(entry.thread)) continue;
      this.failure ??= error;
      this.waiting.delete(id);
      entry.thread.pending--;
      entry.resolve();
    }
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure;
  }
}
