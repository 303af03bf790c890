/**
 * Hands the batches of wallet folders to verify's threads (piscina, running verify-thread.ts), at
 * most two waiting per thread, so that a thread never waits for the main thread; or, with no
 * thread asked for, checks them in the main thread (a small tree, where starting threads costs
 * more than it saves).
 */
import { Piscina } from 'piscina';
import pLimit from 'p-limit';
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
  const size = Math.min(threads, batches.length);
  // Every thread started at once: the batches keep them all busy from the first.
  const pool = new Piscina<WalletBatch, WalletBatchResult | { failure: CrossingError }>({
    filename: new URL('./verify-thread-entry.js', import.meta.url).href,
    workerData: { context, limit },
    minThreads: size,
    maxThreads: size,
  });
  const handOut = pLimit(size * PENDING_PER_THREAD);
  let stopped = false;
  try {
    await Promise.all(
      batches.map((batch) =>
        handOut(async () => {
          if (stopped) return;
          const result = await pool.run(batch);
          if ('failure' in result) throw fromCrossing(result.failure, 'a verify thread');
          if (!onResult(result)) stopped = true;
        }),
      ),
    );
  } catch (error) {
    stopped = true;
    handOut.clearQueue();
    throw error;
  } finally {
    await pool.destroy();
  }
}
