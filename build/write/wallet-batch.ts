/**
 * A batch of wallets as it crosses from the streaming thread to a document thread: all numbers, in
 * typed arrays that are transferred, not copied (only the addresses are strings). Chains travel as
 * indexes into `AmountFormat.chains`, amounts as the 32-bit limbs of the raw sum; a document thread
 * turns both into text.
 */
import type { TokenSeries } from '../compute/wallet-series.ts';
import { rawDigits, scaledText } from '../compute/exact-amount.ts';
import { TOKEN_KEYS } from '../../schemas/token-keys.ts';

export interface WalletBatch {
  wallets: string[];
  /** Per wallet, how many (chain, token) series it has. */
  seriesPerWallet: Int32Array;
  /** Per series: chain index, token index, snapshot count. */
  chainIndexes: Int32Array;
  tokenIndexes: Int8Array;
  snapshotsPerSeries: Int32Array;
  /** Per snapshot; `limbs` holds four per snapshot, most significant first. */
  days: Int32Array;
  timestamps: Float64Array;
  limbs: Uint32Array;
}

/** What a document thread needs to turn a batch's numbers into text; the same for every batch. */
export interface AmountFormat {
  /** Chain IDs as text, by chain index (exact whatever their size). */
  chains: string[];
  /** Decimals by `chainIndex * TOKEN_KEYS.length + tokenIndex`. */
  decimals: number[];
}

/** Collects a batch, growing its arrays as rows pass (typed arrays, so nothing is boxed). */
export class WalletBatchBuilder {
  private wallets: string[] = [];
  private seriesPerWallet = new GrowingArray(Int32Array);
  private chainIndexes = new GrowingArray(Int32Array);
  private tokenIndexes = new GrowingArray(Int8Array);
  private snapshotsPerSeries = new GrowingArray(Int32Array);
  private days = new GrowingArray(Int32Array);
  private timestamps = new GrowingArray(Float64Array);
  private limbs = new GrowingArray(Uint32Array);

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

  startSeries(chainIndex: number, tokenIndex: number): void {
    this.seriesPerWallet.increment();
    this.chainIndexes.push(chainIndex);
    this.tokenIndexes.push(tokenIndex);
    this.snapshotsPerSeries.push(0);
  }

  addSnapshot(day: number, timestamp: number, limb3: number, limb2: number, limb1: number, limb0: number): void {
    this.snapshotsPerSeries.increment();
    this.days.push(day);
    this.timestamps.push(timestamp);
    this.limbs.push(limb3);
    this.limbs.push(limb2);
    this.limbs.push(limb1);
    this.limbs.push(limb0);
  }

  /** The batch so far, and a fresh start. */
  take(): WalletBatch {
    const batch: WalletBatch = {
      wallets: this.wallets,
      seriesPerWallet: this.seriesPerWallet.take(),
      chainIndexes: this.chainIndexes.take(),
      tokenIndexes: this.tokenIndexes.take(),
      snapshotsPerSeries: this.snapshotsPerSeries.take(),
      days: this.days.take(),
      timestamps: this.timestamps.take(),
      limbs: this.limbs.take(),
    };
    this.wallets = [];
    return batch;
  }
}

type TypedArray = Int8Array | Int32Array | Uint32Array | Float64Array;

/** A typed array that grows as items are pushed (nothing boxed), taken whole to be transferred. */
export class GrowingArray<T extends TypedArray> {
  private items: T;
  length = 0;

  constructor(private readonly kind: { new (length: number): T }) {
    this.items = new kind(1024);
  }

  push(value: number): void {
    if (this.length === this.items.length) {
      const grown = new this.kind(this.items.length * 2);
      grown.set(this.items as never);
      this.items = grown;
    }
    this.items[this.length++] = value;
  }

  /** `count` items of `source` from `from` on, at once. */
  pushAll(source: { subarray(from: number, to: number): ArrayLike<number> }, from: number, count: number): void {
    if (this.length + count > this.items.length) {
      const grown = new this.kind(Math.max(this.items.length * 2, this.length + count));
      grown.set(this.items as never);
      this.items = grown;
    }
    this.items.set(source.subarray(from, from + count) as never, this.length);
    this.length += count;
  }

  /** Adds `count` to the last item. */
  add(count: number): void {
    this.items[this.length - 1]! += count;
  }

  /** Adds one to the last item. */
  increment(): void {
    this.items[this.length - 1]!++;
  }

  /** The items so far (their own buffer, ready to transfer), and a fresh start. */
  take(): T {
    const taken = this.items.slice(0, this.length) as T;
    this.length = 0;
    return taken;
  }
}

export function transferList(batch: WalletBatch): ArrayBuffer[] {
  return [
    batch.seriesPerWallet,
    batch.chainIndexes,
    batch.tokenIndexes,
    batch.snapshotsPerSeries,
    batch.days,
    batch.timestamps,
    batch.limbs,
  ].map((array) => array.buffer as ArrayBuffer);
}

/** Each wallet of a batch with its series, as the document builders take them. */
export function* walletsOf(batch: WalletBatch, format: AmountFormat): Generator<{ wallet: string; series: TokenSeries[] }> {
  const { limbs } = batch;
  let seriesIndex = 0;
  let snapshotIndex = 0;
  for (let w = 0; w < batch.wallets.length; w++) {
    const series: TokenSeries[] = [];
    for (let s = 0; s < batch.seriesPerWallet[w]!; s++, seriesIndex++) {
      const chainIndex = batch.chainIndexes[seriesIndex]!;
      const tokenIndex = batch.tokenIndexes[seriesIndex]!;
      const decimals = format.decimals[chainIndex * TOKEN_KEYS.length + tokenIndex]!;
      const end = snapshotIndex + batch.snapshotsPerSeries[seriesIndex]!;
      const balances: string[] = [];
      for (let k = snapshotIndex; k < end; k++) {
        balances.push(scaledText(rawDigits(limbs[4 * k]!, limbs[4 * k + 1]!, limbs[4 * k + 2]!, limbs[4 * k + 3]!), decimals));
      }
      series.push({
        chainId: format.chains[chainIndex]!,
        tokenIndex,
        days: Array.from(batch.days.subarray(snapshotIndex, end)),
        timestamps: Array.from(batch.timestamps.subarray(snapshotIndex, end)),
        balances,
      });
      snapshotIndex = end;
    }
    yield { wallet: batch.wallets[w]!, series };
  }
}
