/**
 * A batch of wallets as it crosses from the streaming thread to a writer thread: numbers in typed
 * arrays (transferred, not copied) and the balance texts joined into one string, so that handing
 * a batch over costs far less than the documents it becomes.
 */
import type { TokenSeries } from './compute-history.ts';

export interface WalletBatch {
  wallets: string[];
  /** Per wallet, how many (chain, token) series it has. */
  seriesPerWallet: Int32Array;
  /** Per series: chain ID (as text: exact whatever its size), token index, snapshot count. */
  chainIds: string[];
  tokenIndexes: Int8Array;
  snapshotsPerSeries: Int32Array;
  /** Per snapshot. */
  days: Int32Array;
  timestamps: Float64Array;
  balances: string;
}

const SEPARATOR = '|';

export class WalletBatchBuilder {
  private wallets: string[] = [];
  private seriesPerWallet: number[] = [];
  private chainIds: string[] = [];
  private tokenIndexes: number[] = [];
  private snapshotsPerSeries: number[] = [];
  private days: number[] = [];
  private timestamps: number[] = [];
  private balances: string[] = [];

  get walletCount(): number {
    return this.wallets.length;
  }

  get snapshotCount(): number {
    return this.days.length;
  }

  startWallet(wallet: string): void {
    this.wallets.push(wallet);
    this.seriesPerWallet.push(0);
  }

  startSeries(chainId: string, tokenIndex: number): void {
    this.seriesPerWallet[this.seriesPerWallet.length - 1]!++;
    this.chainIds.push(chainId);
    this.tokenIndexes.push(tokenIndex);
    this.snapshotsPerSeries.push(0);
  }

  addSnapshot(day: number, timestamp: number, balance: string): void {
    this.snapshotsPerSeries[this.snapshotsPerSeries.length - 1]!++;
    this.days.push(day);
    this.timestamps.push(timestamp);
    this.balances.push(balance);
  }

  /** The batch so far, and a fresh start. */
  take(): WalletBatch {
    const batch: WalletBatch = {
      wallets: this.wallets,
      seriesPerWallet: Int32Array.from(this.seriesPerWallet),
      chainIds: this.chainIds,
      tokenIndexes: Int8Array.from(this.tokenIndexes),
      snapshotsPerSeries: Int32Array.from(this.snapshotsPerSeries),
      days: Int32Array.from(this.days),
      timestamps: Float64Array.from(this.timestamps),
      balances: this.balances.join(SEPARATOR),
    };
    this.wallets = [];
    this.seriesPerWallet = [];
    this.chainIds = [];
    this.tokenIndexes = [];
    this.snapshotsPerSeries = [];
    this.days = [];
    this.timestamps = [];
    this.balances = [];
    return batch;
  }
}

export function transferList(batch: WalletBatch): ArrayBuffer[] {
  return [batch.seriesPerWallet, batch.tokenIndexes, batch.snapshotsPerSeries, batch.days, batch.timestamps].map(
    (array) => array.buffer as ArrayBuffer,
  );
}

/** Each wallet of a batch with its series, as the document builders take them. */
export function* walletsOf(batch: WalletBatch): Generator<{ wallet: string; series: TokenSeries[] }> {
  const balances = batch.balances.split(SEPARATOR);
  let seriesIndex = 0;
  let snapshotIndex = 0;
  for (let w = 0; w < batch.wallets.length; w++) {
    const series: TokenSeries[] = [];
    for (let s = 0; s < batch.seriesPerWallet[w]!; s++, seriesIndex++) {
      const count = batch.snapshotsPerSeries[seriesIndex]!;
      const end = snapshotIndex + count;
      series.push({
        chainId: batch.chainIds[seriesIndex]!,
        tokenIndex: batch.tokenIndexes[seriesIndex]!,
        days: Array.from(batch.days.subarray(snapshotIndex, end)),
        timestamps: Array.from(batch.timestamps.subarray(snapshotIndex, end)),
        balances: balances.slice(snapshotIndex, end),
      });
      snapshotIndex = end;
    }
    yield { wallet: batch.wallets[w]!, series };
  }
}
