/**
 * The file thread: writes the wallet files of assembled batches, one batch after another, with
 * synchronous calls, and reports each batch to the main thread. One thread writes because the
 * kernel does not write faster from two: on this 2-core VM, two threads writing the 200,000 files
 * of 100k wallets took as long as one and burned twice the system CPU, CPU that the document
 * threads need (README, Scale).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parentPort, type MessagePort } from 'node:worker_threads';
import type { AssembledBatch } from './document-thread.ts';
import { ADDRESS_DIR } from '../../tree/layout.ts';

export type FileRequest = { type: 'setup'; root: string } | { type: 'documents'; port: MessagePort };

export interface FileReply {
  id: number;
  files: number;
  bytes: number;
  positionsWithoutPrice: number;
  manifestLines: string;
  failure: string | null;
}

let addressDir = '';

/** Each wallet's folder and its `portfolio` folder, then its two files (the layout of tree/layout.ts). */
function write(batch: AssembledBatch): FileReply {
  const bytes = new Uint8Array(batch.bytes);
  let start = 0;
  for (let w = 0; w < batch.wallets.length; w++) {
    const folder = path.join(addressDir, batch.wallets[w]!);
    fs.mkdirSync(folder);
    fs.mkdirSync(path.join(folder, 'portfolio'));
    const historyEnd = batch.ends[2 * w]!;
    const dailyEnd = batch.ends[2 * w + 1]!;
    fs.writeFileSync(path.join(folder, 'portfolio.json'), bytes.subarray(start, historyEnd));
    fs.writeFileSync(path.join(folder, 'portfolio', 'daily.json'), bytes.subarray(historyEnd, dailyEnd));
    start = dailyEnd;
  }
  return { id: batch.id, files: 2 * batch.wallets.length, bytes: start, positionsWithoutPrice: batch.positionsWithoutPrice, manifestLines: batch.manifestLines, failure: null };
}

function onBatch(batch: AssembledBatch): void {
  let reply: FileReply;
  if (batch.failure !== null) {
    reply = { id: batch.id, files: 0, bytes: 0, positionsWithoutPrice: 0, manifestLines: '', failure: batch.failure };
  } else {
    try {
      reply = write(batch);
    } catch (error) {
      reply = { id: batch.id, files: 0, bytes: 0, positionsWithoutPrice: 0, manifestLines: '', failure: error instanceof Error ? error.stack ?? error.message : String(error) };
    }
  }
  parentPort!.postMessage(reply);
}

parentPort?.on('message', (request: FileRequest) => {
  if (request.type === 'setup') {
    addressDir = path.join(request.root, ...ADDRESS_DIR.split('/'));
    fs.mkdirSync(addressDir, { recursive: true });
  } else {
    request.port.on('message', onBatch);
  }
});
