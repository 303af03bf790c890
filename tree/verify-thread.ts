/**
 * A verify thread: checks the batches of wallet folders the main thread hands it (verify-pool.ts)
 * and answers each with its failures and what the rules across wallets need, never the documents.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { WalletChecker, type WalletBatch, type WalletContext } from './verify-wallet.ts';
import { toCrossing } from '../core/errors.ts';

const { context, limit } = workerData as { context: WalletContext; limit: number };
const checker = new WalletChecker(context, limit);

parentPort!.on('message', (batch: WalletBatch) => {
  try {
    parentPort!.postMessage(checker.check(batch));
  } catch (error) {
    // Crosses as data (core/errors.ts): the main thread rebuilds it with its class, code and stack.
    parentPort!.postMessage({ failure: toCrossing(error) });
  }
});
