/**
 * The bulk of each wallet's documents, written by build/write/document-bytes.wasm (source:
 * assembly/document-bytes.ts): the snapshot arrays of the history document and the day rows of the
 * daily document (`DocumentBytes`), and the day rows of each points history (`HistoryDayBytes`,
 * which needs no prices). This side lays out a wallet's snapshots in the module's memory and reads the
 * bytes back; what goes in a document is decided in build/compute/history.ts and
 * build/write/daily-document.ts (from the prices of build/compute/daily.ts).
 *
 * Memory, above the module's own constants, in the layout of build/write/document-layout.ts (the
 * one table both sides import):
 * - once per thread: a prefix per (chain, token) and each price series with a slot per day;
 * - per wallet: its snapshots, each balance text preceded by its series' prefix, series by series
 *   in transaction order; then, for the daily document, the series rewritten in day order where
 *   needed (build/write/daily-document.ts), the series table, a cursor per series, a scratch area
 *   for one day's values and price slots, and the output.
 */
import fs from 'node:fs';
import { TOKEN_KEYS } from '../../schemas/token-keys.ts';
import { priceKey, type EndOfDaySeries, type PriceBook, type TokenSeries } from '../compute/wallet-series.ts';
import { UserError } from '../../core/errors.ts';
import { growTo } from '../../core/wasm-memory.ts';
import {
  CURSOR_SIZE,
  PREFIX_LENGTH,
  PREFIX_TEXT,
  PRICES_DAYS,
  PRICES_FIRST_DAY,
  PRICES_SLOTS,
  PRICE_SLOT_SIZE,
  PRICE_SLOT_TEXT,
  PRICE_SLOT_TEXT_LENGTH,
  PRICE_SLOT_VALUE,
  SCRATCH_SLOT_SIZE,
  SCRATCH_VALUE_SIZE,
  SERIES_COUNT,
  SERIES_PREFIX,
  SERIES_PRICES,
  SERIES_SIZE,
  SERIES_SNAPSHOTS,
  SNAPSHOT_AMOUNT,
  SNAPSHOT_DAY,
  SNAPSHOT_IS_ZERO,
  SNAPSHOT_SIZE,
  SNAPSHOT_TEXT,
  SNAPSHOT_TEXT_LENGTH,
  SNAPSHOT_TIMESTAMP,
} from './document-layout.ts';

export const DOCUMENT_BYTES_WASM = new URL('./document-bytes.wasm', import.meta.url);

const wasm = new WebAssembly.Module(fs.readFileSync(DOCUMENT_BYTES_WASM));

interface Exports {
  memory: WebAssembly.Memory;
  dataStart(): number;
  writeSnapshots(events: number, count: number, out: number): number;
  writeDays(series: number, seriesCount: number, firstDay: number, lastDay: number, out: number, scratch: number, cursors: number): number;
  writeHistoryDays(days: number, points: number, totals: number, ranks: number, count: number, out: number): number;
  positionsWithoutPrice: WebAssembly.Global;
  failedSeries: WebAssembly.Global;
  failedDay: WebAssembly.Global;
}

/** Longest JSON text of a finite double (`-2.2250738585072014e-308`), with room to spare. */
const NUMBER_BYTES = 25;
/** A position's bytes besides its prefix, balance and two numbers: `,"usdPerToken":`, `,"valueUsd":`, `}`, `,`. */
const POSITION_BYTES = 15 + 12 + 1 + 1;
/** A day row's bytes besides its positions: `,{"date":"YYYY-MM-DD","totalValueUsd":` ... `,"positions":[` ... `]}`. */
const DAY_BYTES = 1 + 9 + 10 + 18 + NUMBER_BYTES + 14 + 2;
/** A snapshot's bytes besides its balance: `,{"date":"YYYY-MM-DD","timestamp":` (an integer) `,"balance":` ... `}`. */
const SNAPSHOT_BYTES = 1 + 9 + 10 + 14 + 21 + 11 + 1;
/** The module writes its fixed pieces eight bytes at a time, up to 7 bytes past their end. */
const PIECE_SLACK = 8;

export class DocumentBytes {
  private readonly exports: Exports;
  private bytes!: Uint8Array;
  private view!: DataView;
  /** Per (chain, token): where its prefix and its price series are (0: no price). */
  private readonly slots = new Map<string, { prefix: number; prefixLength: number; prices: number }>();
  /** Where each wallet's data starts. */
  private readonly walletStart: number;
  /** The current wallet's series, where their snapshots are, and where free memory starts. */
  private series: TokenSeries[] = [];
  private snapshotsAt: number[] = [];
  private free = 0;

  constructor(prices: PriceBook, chains: string[]) {
    this.exports = new WebAssembly.Instance(wasm, {}).exports as unknown as Exports;
    this.refreshViews();
    let at = align(this.exports.dataStart());
    const priceAt = new Map<string, number>();
    for (const [key, series] of prices) {
      const length = series.values.length;
      this.reserve(at + PRICES_SLOTS + PRICE_SLOT_SIZE * length);
      priceAt.set(key, at);
      this.view.setInt32(at + PRICES_FIRST_DAY, series.firstDay, true);
      this.view.setInt32(at + PRICES_DAYS, length, true);
      for (let day = 0; day < length; day++) {
        const slot = at + PRICES_SLOTS + PRICE_SLOT_SIZE * day;
        const text = `,"usdPerToken":${series.texts[day]!},"valueUsd":`;
        if (text.length > PRICE_SLOT_SIZE - PRICE_SLOT_TEXT) throw new Error(`price text ${text} is longer than its slot`);
        this.view.setFloat64(slot + PRICE_SLOT_VALUE, series.values[day]!, true);
        this.bytes[slot + PRICE_SLOT_TEXT_LENGTH] = text.length;
        this.writeText(text, slot + PRICE_SLOT_TEXT);
      }
      at += PRICES_SLOTS + PRICE_SLOT_SIZE * length;
    }
    for (const chainId of chains) {
      for (let tokenIndex = 0; tokenIndex < TOKEN_KEYS.length; tokenIndex++) {
        const key = priceKey(chainId, tokenIndex);
        const prefix = `{"token":"${TOKEN_KEYS[tokenIndex]}","chainId":${chainId},"balance":`;
        // Its length is one byte: a chain ID of some 200 digits would not fit.
        if (prefix.length > 255)
          throw new UserError(`tokens.parquet: column "chain_id": ${chainId} is too long to be written as a chain ID`);
        this.reserve(at + PREFIX_TEXT + prefix.length);
        this.bytes[at + PREFIX_LENGTH] = prefix.length;
        this.writeText(prefix, at + PREFIX_TEXT);
        this.slots.set(key, { prefix: at, prefixLength: prefix.length, prices: priceAt.get(key) ?? 0 });
        at += PREFIX_TEXT + prefix.length;
      }
    }
    this.walletStart = align(at);
  }

  /** Lays out a wallet's series; `snapshots` and `dayRows` then write from them. */
  startWallet(series: TokenSeries[]): void {
    this.series = series;
    this.snapshotsAt = [];
    this.free = this.walletStart;
    for (const one of series) this.snapshotsAt.push(this.layOut(one, one.timestamps));
  }

  /** The snapshots of the wallet's series `j`, comma-separated, as bytes valid until the next call. */
  snapshots(j: number): Uint8Array {
    const one = this.series[j]!;
    let bound = 0;
    for (const balance of one.balances) bound += SNAPSHOT_BYTES + balance.length;
    const out = this.free;
    this.reserve(out + bound + PIECE_SLACK);
    const length = this.exports.writeSnapshots(this.snapshotsAt[j]!, one.days.length, out);
    return this.bytes.subarray(out, out + length);
  }

  /**
   * The rows of days `firstDay..lastDay`, comma-separated, as bytes valid until the next call; a
   * series is the wallet's own (laid out already) or its rewrite in day order. Returns the
   * (series, day) whose value is not finite instead, when one is not.
   */
  dayRows(
    series: EndOfDaySeries[],
    firstDay: number,
    lastDay: number,
  ): { rows: Uint8Array; withoutPrice: number } | { failedSeries: number; failedDay: number } {
    const snapshotsAt = series.map((one, j) => (one === this.series[j] ? this.snapshotsAt[j]! : this.layOut(one, null)));
    const count = series.length;
    let rowBytes = DAY_BYTES;
    for (const one of series) {
      let longest = 1;
      for (const balance of one.balances) if (balance.length > longest) longest = balance.length;
      rowBytes += this.slot(one).prefixLength + longest + POSITION_BYTES + 2 * NUMBER_BYTES;
    }
    const table = this.free;
    const cursors = table + SERIES_SIZE * count;
    const scratch = align(cursors + CURSOR_SIZE * count);
    const out = scratch + (SCRATCH_VALUE_SIZE + SCRATCH_SLOT_SIZE) * count;
    this.reserve(out + rowBytes * (lastDay - firstDay + 1) + PIECE_SLACK);
    for (let j = 0; j < count; j++) {
      const one = series[j]!;
      const slot = this.slot(one);
      const entry = table + SERIES_SIZE * j;
      this.view.setUint32(entry + SERIES_PREFIX, slot.prefix, true);
      this.view.setUint32(entry + SERIES_PRICES, slot.prices, true);
      this.view.setInt32(entry + SERIES_COUNT, one.days.length, true);
      this.view.setUint32(entry + SERIES_SNAPSHOTS, snapshotsAt[j]!, true);
    }
    const withoutPriceBefore = this.exports.positionsWithoutPrice.value as number;
    const length = this.exports.writeDays(table, count, firstDay, lastDay, out, scratch, cursors);
    if (length < 0) return { failedSeries: this.exports.failedSeries.value as number, failedDay: this.exports.failedDay.value as number };
    return {
      rows: this.bytes.subarray(out, out + length),
      withoutPrice: (this.exports.positionsWithoutPrice.value as number) - withoutPriceBefore,
    };
  }

  /** Writes a series' snapshots and balance texts (each after the series' prefix) at the free end; returns where the snapshots are. */
  private layOut(one: EndOfDaySeries, timestamps: ArrayLike<number> | null): number {
    const { prefix, prefixLength } = this.slot(one);
    const count = one.days.length;
    let textBytes = prefixLength * count;
    for (const balance of one.balances) textBytes += balance.length;
    const at = align(this.free);
    let text = at + SNAPSHOT_SIZE * count;
    this.reserve(text + textBytes);
    const { view } = this;
    for (let k = 0; k < count; k++) {
      const snapshot = at + SNAPSHOT_SIZE * k;
      const balance = one.balances[k]!;
      this.bytes.copyWithin(text, prefix + PREFIX_TEXT, prefix + PREFIX_TEXT + prefixLength);
      text += prefixLength;
      view.setInt32(snapshot + SNAPSHOT_DAY, one.days[k]!, true);
      view.setUint32(snapshot + SNAPSHOT_TEXT, text, true);
      view.setUint32(snapshot + SNAPSHOT_TEXT_LENGTH, balance.length, true);
      view.setUint32(snapshot + SNAPSHOT_IS_ZERO, balance === '0' ? 1 : 0, true);
      view.setFloat64(snapshot + SNAPSHOT_AMOUNT, Number(balance), true);
      view.setFloat64(snapshot + SNAPSHOT_TIMESTAMP, timestamps === null ? 0 : timestamps[k]!, true);
      text += this.writeText(balance, text);
    }
    this.free = text;
    return at;
  }

  private slot(one: EndOfDaySeries) {
    const slot = this.slots.get(priceKey(one.chainId, one.tokenIndex));
    if (slot === undefined) throw new Error(`no prefix for chain ${one.chainId}, token ${one.tokenIndex}`);
    return slot;
  }

  /** ASCII text at `at`; returns its length. */
  private writeText(text: string, at: number): number {
    for (let i = 0; i < text.length; i++) this.bytes[at + i] = text.charCodeAt(i);
    return text.length;
  }

  private reserve(end: number): void {
    if (growTo(this.exports.memory, end)) this.refreshViews();
  }

  private refreshViews(): void {
    this.bytes = new Uint8Array(this.exports.memory.buffer);
    this.view = new DataView(this.exports.memory.buffer);
  }
}

const align = (offset: number) => Math.ceil(offset / 8) * 8;

/** A points history day's bytes besides its two numbers: `,{"date":"YYYY-MM-DD","points":` ... `,"totalPoints":` ... `,"rank":` (an i32) `}`. */
const HISTORY_DAY_BYTES = 1 + 9 + 10 + 11 + 15 + 8 + 11 + 1;

/** The columns of points history days, as history-rows.ts carries them. */
export interface HistoryDayColumns {
  days: Int32Array;
  points: Float64Array;
  totals: Float64Array;
  ranks: Int32Array;
}

/**
 * The day rows of the points histories (`{"date":..,"points":..,"totalPoints":..,"rank":..}`,
 * numbers as String() writes them): one instance per document thread, its memory holding one
 * season's columns and rows at a time.
 */
export class HistoryDayBytes {
  private readonly exports: Exports = new WebAssembly.Instance(wasm, {}).exports as unknown as Exports;
  private readonly start = align(this.exports.dataStart());

  /** The rows of days `from` to `from + count - 1` of `columns`, comma-separated, as bytes valid until the next call. */
  rows(columns: HistoryDayColumns, from: number, count: number): Uint8Array | { failedDay: number } {
    const days = this.start;
    const ranks = days + 4 * count;
    const points = align(ranks + 4 * count);
    const totals = points + 8 * count;
    const out = totals + 8 * count;
    const end = out + (HISTORY_DAY_BYTES + 2 * NUMBER_BYTES) * count + PIECE_SLACK;
    growTo(this.exports.memory, end);
    const buffer = this.exports.memory.buffer;
    new Int32Array(buffer, days, count).set(columns.days.subarray(from, from + count));
    new Int32Array(buffer, ranks, count).set(columns.ranks.subarray(from, from + count));
    new Float64Array(buffer, points, count).set(columns.points.subarray(from, from + count));
    new Float64Array(buffer, totals, count).set(columns.totals.subarray(from, from + count));
    const length = this.exports.writeHistoryDays(days, points, totals, ranks, count, out);
    if (length < 0) return { failedDay: this.exports.failedDay.value as number };
    return new Uint8Array(buffer, out, length);
  }
}
