/**
 * Hands the batches of wallet folders to verify's threads (verify-thread.ts), at most two waiting
 * per thread, so that a thread never waits for the main thread; or, with no thread asked for,
 * checks them in the main thread (a small tree, where starting threads costs more than it saves).
 */
import { Worker } from 'node:worker_threads';
import { WalletChecker, type WalletBatch, type WalletBatchResult, type WalletContext } from './verify-wallet.ts';
import { fromCrossing, type CrossingError } from '../core/errors.ts';

const PENDING_PER_THREAD = 2;

/**
 * Checks every batch; `onResult` gets each result as it comes (not in batch order) and returns
 * false to stop handing out batches (enough failures to report).
 */
export async function checkWalletBatches(
  context: WalletContext,
  batches: WalletBatch[],
  threads: number,
  limit: number,
  onResult: (result: WalletBatchResult) => boolean,
): Promise<void> {
  if (threads <= 0) {
    const checker = new WalletChecker(context, limit);
    for (const batch of batches) {
      if (!onResult(checker.check(batch))) return;
      // Lets a signal or a timer in between batches.
      await new Promise((resolve) => setImmediate(resolve));
    }
    return;
  }
  const workers = Array.from(
    { length: Math.min(threads, batches.length) },
    () => new Worker(new URL('./verify-thread-entry.js', import.meta.url), { workerData: { context, limit } }),
  );
  try {
    await new Promise<void>((resolve, reject) => {
      let next = 0;
      let running = 0;
      let stopped = false;
      const feed = (worker: Worker) => {
        if (stopped || next >= batches.length) return;
        running++;
        worker.postMessage(batches[next++]);
      };
      for (const worker of workers) {
        worker.on('message', (result: WalletBatchResult | { failure: CrossingError }) => {
          if ('failure' in result) {
            stopped = true;
            reject(fromCrossing(result.failure, 'a verify thread'));
            return;
          }
          running--;
          if (!onResult(result)) stopped = true;
          feed(worker);
          if (running === 0) resolve();
        });
        worker.on('error', reject);
        worker.on('exit', (code) => {
          if (code !== 0) reject(new Error(`a verify thread stopped with code ${code}`));
        });
        for (let k = 0; k < PENDING_PER_THREAD; k++) feed(worker);
      }
      if (running === 0) resolve();
    });
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}
