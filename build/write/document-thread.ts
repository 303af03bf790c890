/**
 * A document thread of the writer pool (writer-pool.ts): assembles the documents of a batch into
 * one buffer and hands it to the file thread. A wallet batch gives each wallet's two portfolio
 * documents (history, then daily: JavaScript, and the WebAssembly module of document-bytes.ts); a
 * batch of points-history rows gives each participant's points history (history-rows.ts).
 * Assembling runs on as many threads as there are cores; writing is kernel work that runs best
 * from one thread (see file-thread.ts). A packed build's documents are hashed and compressed here,
 * as they are made.
 */
import { manifestLine } from '../../tree/manifest-line.ts';
import crypto from 'node:crypto';
import { parentPort, type MessagePort } from 'node:worker_threads';
import { historyDocument } from './history-document.ts';
import { dailyDocument, type DailyStats } from './daily-document.ts';
import { checkSampleDocuments, checkSamplePointsHistory } from './check-output.ts';
import { DocumentBytes, HistoryDayBytes } from './document-bytes.ts';
import type { DocumentSink, PriceBook } from '../compute/wallet-series.ts';
import { walletsOf, type AmountFormat, type WalletBatch } from './wallet-batch.ts';
import { writeHistories, type HistoryRows } from './history-rows.ts';
import { dailyFile, pointsHistoryFile, portfolioFile } from '../../tree/layout.ts';
import { toCrossing, type CrossingError } from '../../core/errors.ts';
import { gzip } from '../../tree/pack-compress.ts';

export interface DocumentSetup {
  dailyAsOf: string | null;
  lastDay: number;
  prices: PriceBook;
  format: AmountFormat;
  manifest: boolean;
  /** `build --packed`: each document is compressed here as it is made (the file thread packs it as it is). */
  packed: boolean;
}

export type DocumentRequest =
  | { type: 'port'; files: MessagePort }
  | { type: 'setup'; setup: DocumentSetup }
  | { type: 'batch'; id: number; batch: WalletBatch; sample: boolean }
  | { type: 'histories'; id: number; rows: HistoryRows; sample: boolean }
  /** The wallets are written: the prices and the WebAssembly writer are let go (the histories need neither). */
  | { type: 'portfolios written' }
  /** The build is done and this thread is kept for the next one (thread-cache.ts): its state goes. */
  | { type: 'reset' };

/** Which documents a batch holds: each wallet's portfolio and daily portfolio, or each participant's points history. */
type AssembledKind = 'portfolios' | 'histories';

/** A batch's documents, as they go to the file thread. */
export interface AssembledBatch {
  id: number;
  kind: AssembledKind;
  wallets: string[];
  /** Per document (a wallet's history then daily; or its points history), where it ends. */
  ends: Uint32Array;
  /** The documents one after another (all JSON here is ASCII, so a character is a byte); gzip members when packed. */
  bytes: ArrayBuffer;
  /** Packed: the sha256 of each document (32 bytes each, in order) and where each ends uncompressed; null otherwise. */
  packed: { digests: Uint8Array; rawEnds: Uint32Array } | null;
  positionsWithoutPrice: number;
  /** `<sha256>  <path>` lines of the files, when a manifest is asked for. */
  manifestLines: string;
  failure: CrossingError | null;
}

let setup: DocumentSetup | null = null;
let documentBytes: DocumentBytes | null = null;
/** The points histories' writer, made at their first batch (its memory one season's days). */
let historyDayBytes: HistoryDayBytes | null = null;
/**
 * A batch's buffer starts at the size the previous one needed, with room to spare: growing it
 * copies what is written so far.
 */
let capacity = 1 << 24;
let files: MessagePort | null = null;

/** One batch's documents as they are written: the text, where each document ends, and (when asked) their hashes. */
class BatchDocuments implements DocumentSink {
  private buffer = Buffer.allocUnsafeSlow(capacity);
  length = 0;
  private readonly ends: Uint32Array;
  private readonly digests: Uint8Array | null;
  private count = 0;
  manifestLines = '';

  constructor(
    documents: number,
    private readonly hashed: { manifest: boolean; packed: boolean },
  ) {
    this.ends = new Uint32Array(documents);
    this.digests = hashed.packed ? new Uint8Array(32 * documents) : null;
  }

  text(value: string): void {
    this.room(value.length);
    this.length += this.buffer.write(value, this.length, 'latin1');
  }

  bytes(value: Uint8Array): void {
    this.room(value.length);
    this.buffer.set(value, this.length);
    this.length += value.length;
  }

  /** The document written since the previous one ends here: it is the file `file`. */
  end(file: string): Buffer {
    const start = this.count === 0 ? 0 : this.ends[this.count - 1]!;
    this.ends[this.count] = this.length;
    const document = this.buffer.subarray(start, this.length);
    if (this.hashed.manifest || this.digests) {
      const digest = crypto.createHash('sha256').update(document).digest();
      this.digests?.set(digest, 32 * this.count);
      if (this.hashed.manifest) this.manifestLines += manifestLine(digest.toString('hex'), file);
    }
    this.count++;
    return document;
  }

  /** The batch for the file thread: as written, or each document gzipped as the store keeps it (tree/pack-compress.ts). */
  take(id: number, kind: AssembledKind, wallets: string[], positionsWithoutPrice: number): AssembledBatch {
    capacity = Math.max(1 << 20, Math.ceil(this.length * 1.25));
    const common = { id, kind, wallets, positionsWithoutPrice, manifestLines: this.manifestLines, failure: null };
    if (!this.digests) return { ...common, ends: this.ends, bytes: this.buffer.buffer as ArrayBuffer, packed: null };
    const members: Buffer[] = [];
    const ends = new Uint32Array(this.ends.length);
    let start = 0;
    let end = 0;
    for (let i = 0; i < this.ends.length; i++) {
      const member = gzip(this.buffer.subarray(start, this.ends[i]!));
      members.push(member);
      ends[i] = end += member.length;
      start = this.ends[i]!;
    }
    // A buffer of its own (never Node's shared pool), so that it can be transferred.
    const bytes = new Uint8Array(new ArrayBuffer(end));
    let at = 0;
    for (const member of members) {
      bytes.set(member, at);
      at += member.length;
    }
    return { ...common, ends, bytes: bytes.buffer, packed: { digests: this.digests, rawEnds: this.ends } };
  }

  private room(bytes: number): void {
    if (this.length + bytes > this.buffer.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(2 * this.buffer.length, this.length + bytes));
      this.buffer.copy(grown, 0, 0, this.length);
      this.buffer = grown;
    }
  }
}

function assemblePortfolios(id: number, batch: WalletBatch, sample: boolean): AssembledBatch {
  const { dailyAsOf, lastDay, prices, format } = setup!;
  const stats: DailyStats = { positionsWithoutPrice: 0 };
  const out = new BatchDocuments(2 * batch.wallets.length, setup!);
  let w = 0;
  for (const { wallet, series } of walletsOf(batch, format)) {
    documentBytes!.startWallet(series);
    historyDocument(series, documentBytes!, out);
    const history = out.end(portfolioFile(wallet));
    dailyDocument(series, dailyAsOf, lastDay, documentBytes!, prices, stats, out);
    const daily = out.end(dailyFile(wallet));
    if (sample && w === 0) checkSampleDocuments([{ wallet, history: history.toString('latin1'), daily: daily.toString('latin1') }]);
    w++;
  }
  return out.take(id, 'portfolios', batch.wallets, stats.positionsWithoutPrice);
}

function assembleHistories(id: number, rows: HistoryRows, sample: boolean): AssembledBatch {
  const out = new BatchDocuments(rows.wallets.length, setup!);
  historyDayBytes ??= new HistoryDayBytes();
  writeHistories(rows, historyDayBytes, out, (w) => {
    const document = out.end(pointsHistoryFile(rows.wallets[w]!));
    if (sample && w === 0) checkSamplePointsHistory(rows.wallets[0]!, document.toString('latin1'));
  });
  return out.take(id, 'histories', rows.wallets, 0);
}

parentPort?.on('message', (request: DocumentRequest) => {
  if (request.type === 'port') {
    files = request.files;
    return;
  }
  if (request.type === 'setup') {
    setup = request.setup;
    documentBytes = new DocumentBytes(setup.prices, setup.format.chains);
    return;
  }
  if (request.type === 'portfolios written') {
    documentBytes = null;
    setup = { ...setup!, prices: new Map() };
    capacity = 1 << 24;
    return;
  }
  if (request.type === 'reset') {
    files?.close();
    files = null;
    setup = null;
    documentBytes = null;
    historyDayBytes = null;
    return;
  }
  let assembled: AssembledBatch;
  try {
    assembled =
      request.type === 'batch'
        ? assemblePortfolios(request.id, request.batch, request.sample)
        : assembleHistories(request.id, request.rows, request.sample);
  } catch (error) {
    // Its class, exit code and cause cross as data (core/errors.ts), for the main thread to rebuild.
    const failure = toCrossing(error);
    assembled = {
      id: request.id,
      kind: request.type === 'batch' ? 'portfolios' : 'histories',
      wallets: [],
      ends: new Uint32Array(0),
      bytes: new ArrayBuffer(0),
      packed: null,
      positionsWithoutPrice: 0,
      manifestLines: '',
      failure,
    };
  }
  files!.postMessage(assembled, [assembled.bytes, assembled.ends.buffer as ArrayBuffer]);
});
