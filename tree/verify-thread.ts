/**
 * A verify thread's task (piscina, verify-pool.ts): checks a batch of wallet folders and answers
 * with its failures and what the rules across wallets need, never the documents.
 */
import { workerData } from 'piscina';
import { WalletChecker, type WalletBatch, type WalletBatchResult, type WalletContext } from './verify-wallet.ts';
import { toCrossing, type CrossingError } from '../core/errors.ts';

const { context, limit } = workerData as { context: WalletContext; limit: number };
const checker = new WalletChecker(context, limit);

export function checkBatch(batch: WalletBatch): WalletBatchResult | { failure: CrossingError } {
  try {
    return checker.check(batch);
  } catch (error) {
    // Crosses as data (core/errors.ts): the main thread rebuilds it with its class, code and stack.
    return { failure: toCrossing(error) };
  }
}
