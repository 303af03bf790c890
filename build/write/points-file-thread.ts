/**
 * A points file thread: writes the points documents of a batch, one `points.json` (or, for the
 * points history, one `points/history.json`) per wallet folder, with synchronous calls like the
 * wallets' file thread (file-thread.ts), and reports each batch. The folder of a wallet with
 * balance history exists already (the wallet stage made it); the folder of a participant without
 * history is made here; the history's `points/` folder is made beside its points file.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parentPort } from 'node:worker_threads';
import { ADDRESS_DIR, POINTS_FILE_NAME, POINTS_HISTORY_DIR_NAME, POINTS_HISTORY_FILE_NAME, pointsFile, pointsHistoryFile } from '../../tree/layout.ts';

/** Which document of a wallet the thread writes: its points standing, or its points history. */
export type PointsDocumentKind = 'standing' | 'history';

export interface PointsBatch {
  /** Numbered by the pool in submission order, both kinds together (the manifest's order). */
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

export type PointsFileRequest = { type: 'setup'; root: string; manifest: boolean } | { type: 'batch'; batch: PointsBatch };

export interface PointsFileReply {
  id: number;
  files: number;
  bytes: number;
  /** `<sha256>  <path>` lines of the files, when a manifest is asked for. */
  manifestLines: string;
  failure: string | null;
}

let addressDir = '';
let manifest = false;

function write(batch: PointsBatch): PointsFileReply {
  const { kind } = batch;
  const bytes = new Uint8Array(batch.bytes);
  let manifestLines = '';
  let start = 0;
  for (let w = 0; w < batch.wallets.length; w++) {
    let folder = path.join(addressDir, batch.wallets[w]!);
    if (batch.newFolders[w] === 1) fs.mkdirSync(folder);
    if (kind === 'history') {
      folder = path.join(folder, POINTS_HISTORY_DIR_NAME);
      fs.mkdirSync(folder);
    }
    const document = bytes.subarray(start, batch.ends[w]!);
    fs.writeFileSync(path.join(folder, kind === 'history' ? POINTS_HISTORY_FILE_NAME : POINTS_FILE_NAME), document);
    if (manifest) {
      const file = kind === 'history' ? pointsHistoryFile(batch.wallets[w]!) : pointsFile(batch.wallets[w]!);
      manifestLines += `${crypto.createHash('sha256').update(document).digest('hex')}  ${file}\n`;
    }
    start = batch.ends[w]!;
  }
  return { id: batch.id, files: batch.wallets.length, bytes: start, manifestLines, failure: null };
}

parentPort?.on('message', (request: PointsFileRequest) => {
  if (request.type === 'setup') {
    addressDir = path.join(request.root, ...ADDRESS_DIR.split('/'));
    manifest = request.manifest;
    fs.mkdirSync(addressDir, { recursive: true });
    return;
  }
  let reply: PointsFileReply;
  try {
    reply = write(request.batch);
  } catch (error) {
    reply = { id: request.batch.id, files: 0, bytes: 0, manifestLines: '', failure: error instanceof Error ? error.stack ?? error.message : String(error) };
  }
  parentPort!.postMessage(reply);
});
