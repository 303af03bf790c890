/**
 * The file thread: writes every per-wallet file of the tree, one batch after another, with
 * synchronous calls, and reports each batch to the main thread. The wallet documents come
 * assembled from the document threads (document-thread.ts, over ports); the points documents come
 * assembled from the main thread (points.ts, points-history.ts). One thread writes because the
 * kernel does not write faster from two: on this 2-core VM, two threads writing the 200,000 files
 * of 100k wallets took as long as one and burned twice the system CPU, CPU that the document
 * threads need (bench/LOG.md).
 *
 * `build --packed`: the same batches become members of the shard's archives instead of files
 * (pack-file-writer.ts), and so do the shared files and the tree's record, which the main thread
 * then hands here too; `finish` writes the index and the manifest.
 */
import { manifestLine } from '../../tree/manifest-line.ts';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parentPort, type MessagePort } from 'node:worker_threads';
import type { AssembledBatch } from './document-thread.ts';
import { ADDRESS_DIR, dailyFile, pointsFile, pointsHistoryFile, portfolioFile, walletFile } from '../../tree/layout.ts';
import { toCrossing, type CrossingError } from '../../core/errors.ts';
import { PackFileWriter, type PackFacts } from './pack-file-writer.ts';

/** Which points document of a wallet a batch holds: its points standing, or its points history. */
type PointsDocumentKind = 'standing' | 'history';

/** A batch of points documents, assembled on the main thread. */
export interface PointsBatch {
  /** Numbered by the pool in submission order, with the wallet batches (the manifest's order). */
  id: number;
  kind: PointsDocumentKind;
  wallets: string[];
  /** 1 for a wallet whose folder must be made (no balance history), else 0. */
  newFolders: Uint8Array;
  /** Where each wallet's document ends in `bytes`. */
  ends: Uint32Array;
  /** The documents one after another (ASCII: a character is a byte). */
  bytes: ArrayBuffer;
}

/** Files of the tree that are not per-wallet documents (packed builds only: the shared files, the record). */
interface FilesBatch {
  id: number;
  files: { path: string; bytes: Uint8Array }[];
}

export type FileRequest =
  | { type: 'setup'; root: string; manifest: boolean; packed: { shard: { index: number; count: number } } | null }
  | { type: 'documents'; port: MessagePort }
  | { type: 'points'; batch: PointsBatch }
  | { type: 'files'; batch: FilesBatch }
  /** Packed: the last archive closed, the index and manifest written; answered with the pack's facts. */
  | { type: 'finish'; id: number }
  /** The build is done and this thread is kept for the next one (thread-cache.ts): its state goes. */
  | { type: 'reset' };

export interface FileReply {
  id: number;
  files: number;
  bytes: number;
  positionsWithoutPrice: number;
  /** `<sha256>  <path>` lines of the batch's files, when a manifest is asked for. */
  manifestLines: string;
  /** The answer to `finish`. */
  pack?: PackFacts;
  failure: CrossingError | null;
}

let addressDir = '';
/** The archives' writer of a packed build; null for a tree of files. */
let pack: PackFileWriter | null = null;
let manifest = false;
/** The document threads' ports of the current build. */
let documentPorts: MessagePort[] = [];

/** Each document's file inside its wallet's folder (tree/layout.ts, from the endpoint table). */
const PORTFOLIO = walletFile('portfolio');
const DAILY = walletFile('daily');
const POINTS = walletFile('points');
const POINTS_HISTORY = walletFile('pointsHistory');

/**
 * A batch the document threads assembled: each wallet's folder and the daily document's folder
 * in it, then its two files; or each participant's points history, beside the points file the
 * points stage wrote (so the wallet's folder exists).
 */
function writeWalletDocuments(batch: AssembledBatch): FileReply {
  const bytes = new Uint8Array(batch.bytes);
  if (pack) return packAssembled(pack, batch, bytes);
  let start = 0;
  const histories = batch.kind === 'histories';
  for (let w = 0; w < batch.wallets.length; w++) {
    const folder = path.join(addressDir, batch.wallets[w]!);
    if (histories) {
      if (POINTS_HISTORY.folder !== '') fs.mkdirSync(path.join(folder, POINTS_HISTORY.folder));
      fs.writeFileSync(path.join(folder, POINTS_HISTORY.file), bytes.subarray(start, batch.ends[w]!));
      start = batch.ends[w]!;
      continue;
    }
    fs.mkdirSync(folder);
    if (DAILY.folder !== '') fs.mkdirSync(path.join(folder, DAILY.folder));
    const historyEnd = batch.ends[2 * w]!;
    const dailyEnd = batch.ends[2 * w + 1]!;
    fs.writeFileSync(path.join(folder, PORTFOLIO.file), bytes.subarray(start, historyEnd));
    fs.writeFileSync(path.join(folder, DAILY.file), bytes.subarray(historyEnd, dailyEnd));
    start = dailyEnd;
  }
  // The document threads hashed these documents: they had them in hand.
  return {
    id: batch.id,
    files: batch.ends.length,
    bytes: start,
    positionsWithoutPrice: batch.positionsWithoutPrice,
    manifestLines: batch.manifestLines,
    failure: null,
  };
}

/** A batch compressed and hashed by its document thread, each document a member as it is. */
function packAssembled(writer: PackFileWriter, batch: AssembledBatch, bytes: Uint8Array): FileReply {
  const { digests, rawEnds } = batch.packed!;
  const perWallet = batch.kind === 'histories' ? 1 : 2;
  let start = 0;
  for (let i = 0; i < batch.ends.length; i++) {
    const wallet = batch.wallets[Math.floor(i / perWallet)]!;
    const file = perWallet === 1 ? pointsHistoryFile(wallet) : i % 2 === 0 ? portfolioFile(wallet) : dailyFile(wallet);
    const digest = Buffer.from(digests.buffer, digests.byteOffset + 32 * i, 32).toString('hex');
    const rawSize = rawEnds[i]! - (i === 0 ? 0 : rawEnds[i - 1]!);
    writer.addStored(file, bytes.subarray(start, batch.ends[i]!), true, digest, rawSize);
    start = batch.ends[i]!;
  }
  return {
    id: batch.id,
    files: batch.ends.length,
    bytes: rawEnds.length === 0 ? 0 : rawEnds[rawEnds.length - 1]!,
    positionsWithoutPrice: batch.positionsWithoutPrice,
    manifestLines: batch.manifestLines,
    failure: null,
  };
}

/**
 * One points standing (or points history) per wallet folder. The folder of a wallet with balance
 * history exists already (the wallet stage made it); the folder of a participant without history
 * is made here; the history's own folder is made beside its points file.
 */
function writePointsDocuments(batch: PointsBatch): FileReply {
  const { kind } = batch;
  const bytes = new Uint8Array(batch.bytes);
  let manifestLines = '';
  let start = 0;
  if (pack) {
    for (let w = 0; w < batch.wallets.length; w++) {
      const document = bytes.subarray(start, batch.ends[w]!);
      const file = kind === 'history' ? pointsHistoryFile(batch.wallets[w]!) : pointsFile(batch.wallets[w]!);
      const digest = crypto.createHash('sha256').update(document).digest('hex');
      pack.addFile(file, document, digest);
      if (manifest) manifestLines += manifestLine(digest, file);
      start = batch.ends[w]!;
    }
    return { id: batch.id, files: batch.wallets.length, bytes: start, positionsWithoutPrice: 0, manifestLines, failure: null };
  }
  for (let w = 0; w < batch.wallets.length; w++) {
    const folder = path.join(addressDir, batch.wallets[w]!);
    if (batch.newFolders[w] === 1) fs.mkdirSync(folder);
    const written = kind === 'history' ? POINTS_HISTORY : POINTS;
    if (written.folder !== '') fs.mkdirSync(path.join(folder, written.folder));
    const document = bytes.subarray(start, batch.ends[w]!);
    fs.writeFileSync(path.join(folder, written.file), document);
    if (manifest) {
      const file = kind === 'history' ? pointsHistoryFile(batch.wallets[w]!) : pointsFile(batch.wallets[w]!);
      manifestLines += manifestLine(crypto.createHash('sha256').update(document).digest('hex'), file);
    }
    start = batch.ends[w]!;
  }
  return { id: batch.id, files: batch.wallets.length, bytes: start, positionsWithoutPrice: 0, manifestLines, failure: null };
}

/** Packed builds: files that are not per-wallet documents, each a member (their lines are the main thread's to record). */
function packFiles(batch: FilesBatch): FileReply {
  let bytes = 0;
  for (const file of batch.files) {
    pack!.addFile(file.path, file.bytes, crypto.createHash('sha256').update(file.bytes).digest('hex'));
    bytes += file.bytes.length;
  }
  return { id: batch.id, files: batch.files.length, bytes, positionsWithoutPrice: 0, manifestLines: '', failure: null };
}

/** Writes a batch and reports it; a failure (here or in the document thread) is reported, not thrown. */
function settle(id: number, failure: CrossingError | null, write: () => FileReply): void {
  let reply: FileReply;
  if (failure !== null) {
    reply = { id, files: 0, bytes: 0, positionsWithoutPrice: 0, manifestLines: '', failure };
  } else {
    try {
      reply = write();
    } catch (error) {
      reply = { id, files: 0, bytes: 0, positionsWithoutPrice: 0, manifestLines: '', failure: toCrossing(error) };
    }
  }
  parentPort!.postMessage(reply);
}

parentPort?.on('message', (request: FileRequest) => {
  if (request.type === 'setup') {
    addressDir = path.join(request.root, ...ADDRESS_DIR.split('/'));
    manifest = request.manifest;
    pack = request.packed ? new PackFileWriter(request.root, request.packed.shard) : null;
    if (!pack) fs.mkdirSync(addressDir, { recursive: true });
  } else if (request.type === 'documents') {
    request.port.on('message', (batch: AssembledBatch) => settle(batch.id, batch.failure, () => writeWalletDocuments(batch)));
    documentPorts.push(request.port);
  } else if (request.type === 'reset') {
    for (const port of documentPorts) port.close();
    documentPorts = [];
    addressDir = '';
    manifest = false;
    pack?.abandon();
    pack = null;
  } else if (request.type === 'files') {
    settle(request.batch.id, null, () => packFiles(request.batch));
  } else if (request.type === 'finish') {
    settle(request.id, null, () => ({
      id: request.id,
      files: 0,
      bytes: 0,
      positionsWithoutPrice: 0,
      manifestLines: '',
      pack: pack!.finish(),
      failure: null,
    }));
  } else {
    settle(request.batch.id, null, () => writePointsDocuments(request.batch));
  }
});
