/**
 * A document thread of the writer pool (writer-pool.ts): assembles both documents of each wallet
 * of a batch (history, then daily) into one buffer and hands it to the file thread. Assembling
 * (JavaScript, and the WebAssembly module of document-bytes.ts) runs on as many threads as there
 * are cores; writing is kernel work that runs best from one thread (see file-thread.ts).
 */
import { manifestLine } from '../../tree/manifest-line.ts';
import crypto from 'node:crypto';
import { parentPort, type MessagePort } from 'node:worker_threads';
import { historyDocument } from './history-document.ts';
import { dailyDocument, type DailyStats } from './daily-document.ts';
import { checkSampleDocuments } from './check-output.ts';
import { DocumentBytes } from './document-bytes.ts';
import type { DocumentSink, PriceBook } from '../compute/wallet-series.ts';
import { walletsOf, type AmountFormat, type WalletBatch } from './wallet-batch.ts';
import { dailyFile, portfolioFile } from '../../tree/layout.ts';
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
  /** The build is done and this thread is kept for the next one (thread-cache.ts): its state goes. */
  | { type: 'reset' };

/** A batch's documents, as they go to the file thread. */
export interface AssembledBatch {
  id: number;
  wallets: string[];
  /** Per wallet, where its history document ends and where its daily document ends. */
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
/**
 * A batch's buffer starts at the size the previous one needed, with room to spare: growing it
 * copies what is written so far.
 */
let capacity = 1 << 24;
let files: MessagePort | null = null;

function assemble(id: number, batch: WalletBatch, sample: boolean): AssembledBatch {
  const { dailyAsOf, lastDay, prices, format, manifest, packed } = setup!;
  const stats: DailyStats = { positionsWithoutPrice: 0 };
  const ends = new Uint32Array(2 * batch.wallets.length);
  let buffer = Buffer.allocUnsafeSlow(capacity);
  let length = 0;
  const room = (bytes: number) => {
    if (length + bytes > buffer.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(2 * buffer.length, length + bytes));
      buffer.copy(grown, 0, 0, length);
      buffer = grown;
    }
  };
  const out: DocumentSink = {
    text(value) {
      room(value.length);
      length += buffer.write(value, length, 'latin1');
    },
    bytes(value) {
      room(value.length);
      buffer.set(value, length);
      length += value.length;
    },
  };
  let manifestLines = '';
  const digests = packed ? new Uint8Array(32 * ends.length) : null;
  let w = 0;
  for (const { wallet, series } of walletsOf(batch, format)) {
    const start = length;
    documentBytes!.startWallet(series);
    historyDocument(series, documentBytes!, out);
    ends[2 * w] = length;
    dailyDocument(series, dailyAsOf, lastDay, documentBytes!, prices, stats, out);
    ends[2 * w + 1] = length;
    const history = buffer.subarray(start, ends[2 * w]!);
    const daily = buffer.subarray(ends[2 * w]!, length);
    if (sample && w === 0) checkSampleDocuments([{ wallet, history: history.toString('latin1'), daily: daily.toString('latin1') }]);
    if (manifest || digests) {
      const historyDigest = sha256(history);
      const dailyDigest = sha256(daily);
      digests?.set(historyDigest, 64 * w);
      digests?.set(dailyDigest, 64 * w + 32);
      if (manifest)
        manifestLines +=
          manifestLine(historyDigest.toString('hex'), portfolioFile(wallet)) + manifestLine(dailyDigest.toString('hex'), dailyFile(wallet));
    }
    w++;
  }
  capacity = Math.max(1 << 20, Math.ceil(length * 1.25));
  const documents = digests ? compressed(buffer.subarray(0, length), ends) : { bytes: buffer.buffer as ArrayBuffer, ends };
  return {
    id,
    wallets: batch.wallets,
    ends: documents.ends,
    bytes: documents.bytes,
    packed: digests ? { digests, rawEnds: ends } : null,
    positionsWithoutPrice: stats.positionsWithoutPrice,
    manifestLines,
    failure: null,
  };
}

/** Each document gzipped as the store keeps it (tree/pack-compress.ts), one after another, and where each ends. */
function compressed(documents: Buffer, rawEnds: Uint32Array): { bytes: ArrayBuffer; ends: Uint32Array } {
  const members: Buffer[] = [];
  const ends = new Uint32Array(rawEnds.length);
  let start = 0;
  let end = 0;
  for (let i = 0; i < rawEnds.length; i++) {
    const member = gzip(documents.subarray(start, rawEnds[i]!));
    members.push(member);
    ends[i] = end += member.length;
    start = rawEnds[i]!;
  }
  // A buffer of its own (never Node's shared pool), so that it can be transferred.
  const bytes = new Uint8Array(new ArrayBuffer(end));
  let at = 0;
  for (const member of members) {
    bytes.set(member, at);
    at += member.length;
  }
  return { bytes: bytes.buffer, ends };
}

function sha256(bytes: Uint8Array): Buffer {
  return crypto.createHash('sha256').update(bytes).digest();
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
  if (request.type === 'reset') {
    files?.close();
    files = null;
    setup = null;
    documentBytes = null;
    return;
  }
  let assembled: AssembledBatch;
  try {
    assembled = assemble(request.id, request.batch, request.sample);
  } catch (error) {
    // Its class, exit code and cause cross as data (core/errors.ts), for the main thread to rebuild.
    const failure = toCrossing(error);
    assembled = {
      id: request.id,
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
