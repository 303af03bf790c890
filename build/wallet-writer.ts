/**
 * Writes wallets on a worker thread: assembles both documents of each wallet of a batch and
 * writes them with synchronous calls. Writing 200,000 files costs the kernel about as much CPU
 * as assembling them costs JavaScript, so the two run side by side on as many threads as there
 * are cores, while the main thread only streams rows out of DuckDB.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parentPort } from 'node:worker_threads';
import { historyDocument } from './compute-history.ts';
import { dailyDocument, type DailyStats, type PriceBook } from './compute-daily.ts';
import { checkSampleDocuments } from './check-output.ts';
import { dayText } from './days.ts';
import { walletsOf, type AmountFormat, type WalletBatch } from './wallet-batch.ts';
import { dailyFile, portfolioFile } from '../tree/layout.ts';

export interface WriterSetup {
  root: string;
  dailyAsOf: string | null;
  lastDay: number;
  prices: PriceBook;
  format: AmountFormat;
  manifest: boolean;
}

export type WriterRequest = { type: 'setup'; setup: WriterSetup } | { type: 'batch'; batch: WalletBatch; sample: boolean };

export interface WriterReply {
  files: number;
  bytes: number;
  positionsWithoutPrice: number;
  /** `<sha256>  <path>` lines of the files written, when a manifest is asked for. */
  manifestLines: string;
  failure: string | null;
}

let setup: WriterSetup | null = null;

function writeBatch(batch: WalletBatch, sample: boolean): WriterReply {
  const { root, dailyAsOf, lastDay, prices, format, manifest } = setup!;
  const stats: DailyStats = { positionsWithoutPrice: 0 };
  let files = 0;
  let bytes = 0;
  let manifestLines = '';
  let first = true;
  for (const { wallet, series } of walletsOf(batch, format)) {
    const history = historyDocument(series, dayText);
    const daily = dailyDocument(series, dailyAsOf, lastDay, prices, stats);
    if (sample && first) checkSampleDocuments([{ wallet, history, daily }]);
    first = false;
    const historyPath = portfolioFile(wallet);
    const dailyPath = dailyFile(wallet);
    fs.mkdirSync(path.join(root, path.posix.dirname(dailyPath)), { recursive: true });
    fs.writeFileSync(path.join(root, historyPath), history);
    fs.writeFileSync(path.join(root, dailyPath), daily);
    files += 2;
    bytes += history.length + daily.length;
    if (manifest) manifestLines += `${sha256(history)}  ${historyPath}\n${sha256(daily)}  ${dailyPath}\n`;
  }
  return { files, bytes, positionsWithoutPrice: stats.positionsWithoutPrice, manifestLines, failure: null };
}

function sha256(text: string): string {
  return crypto.createHash('sha256').update(text).digest('hex');
}

parentPort?.on('message', (request: WriterRequest) => {
  if (request.type === 'setup') {
    setup = request.setup;
    return;
  }
  try {
    parentPort!.postMessage(writeBatch(request.batch, request.sample));
  } catch (error) {
    const failure = error instanceof Error ? (error.name === 'UserError' ? `user:${error.message}` : error.stack ?? error.message) : String(error);
    parentPort!.postMessage({ files: 0, bytes: 0, positionsWithoutPrice: 0, manifestLines: '', failure } satisfies WriterReply);
  }
});
