/**
 * The bulk of each wallet's documents, written by build/write/document-bytes.wasm (source:
 * assembly/document-bytes.ts): the snapshot arrays of the history document and the day rows of the
 * daily document. This side lays out a wallet's snapshots in the module's memory and reads the
 * bytes back; what goes in a document is decided in build/compute/history.ts and
 * build/compute/daily.ts.
 *
 * Memory, above the module's own constants:
 * - once per thread: a prefix per (chain, token), `{"token":"<key>","chainId":<id>,"balance":`
 *   (length byte, then text), and each price series: first day i32, day count i32, then a 64-byte
 *   slot per day (price f64, text length u8, text `,"usdPerToken":<price>,"valueUsd":`);
 * - per wallet: 32 bytes per snapshot (day i32, balance text offset u32, its length u32, 1 when
 *   the balance is zero u32, amount f64, timestamp f64) and each balance text preceded by its
 *   series' prefix, series by series in transaction order; then, for the daily document, the
 *   series rewritten in day order where needed (build/compute/daily.ts), 16 bytes per series (prefix
 *   offset, price series offset or 0, snapshot count, snapshots offset), a cursor i32 per series,
 *   a scratch area for one day's values and price slots (12 bytes per series), and the output.
 */
import fs from 'node:fs';
import { TOKEN_KEYS } from '../../schemas/token-keys.ts';
import { priceKey, type EndOfDaySeries, type PriceBook, type TokenSeries } from '../compute/wallet-series.ts';
import { DocumentBytesJs } from './document-bytes-js.ts'; // TEMPORARY (issue 29)

export const DOCUMENT_BYTES_WASM = new URL('./document-bytes.wasm', import.meta.url);

const wasm = new WebAssembly.Module(fs.readFileSync(DOCUMENT_BYTES_WASM));

interface Exports {
  memory: WebAssembly.Memory;
  dataStart(): number;
  writeSnapshots(events: number, count: number, out: number): number;
  writeDays(series: number, seriesCount: number, firstDay: number, lastDay: number, out: number, scratch: number, cursors: number): number;
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
const PRICE_SLOT = 64;
/** The module writes its fixed pieces eight bytes at a time, up to 7 bytes past their end. */
const PIECE_SLACK = 8;
const SNAPSHOT = 32;

class WasmDocumentBytes { // TEMPORARY (issue 29): was `export class DocumentBytes`
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
      this.reserve(at + 8 + PRICE_SLOT * length);
      priceAt.set(key, at);
      this.view.setInt32(at, series.firstDay, true);
      this.view.setInt32(at + 4, length, true);
      for (let day = 0; day < length; day++) {
        const slot = at + 8 + PRICE_SLOT * day;
        const text = `,"usdPerToken":${series.texts[day]!},"valueUsd":`;
        if (text.length > PRICE_SLOT - 9) throw new Error(`price text ${text} is longer than its slot`);
        this.view.setFloat64(slot, series.values[day]!, true);
        this.bytes[slot + 8] = text.length;
        this.writeText(text, slot + 9);
      }
      at += 8 + PRICE_SLOT * length;
    }
    for (const chainId of chains) {
      for (let tokenIndex = 0; tokenIndex < TOKEN_KEYS.length; tokenIndex++) {
        const key = priceKey(chainId, tokenIndex);
        const prefix = `{"token":"${TOKEN_KEYS[tokenIndex]}","chainId":${chainId},"balance":`;
        this.reserve(at + 1 + prefix.length);
        this.bytes[at] = prefix.length;
        this.writeText(prefix, at + 1);
        this.slots.set(key, { prefix: at, prefixLength: prefix.length, prices: priceAt.get(key) ?? 0 });
        at += 1 + prefix.length;
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
  dayRows(series: EndOfDaySeries[], firstDay: number, lastDay: number): { rows: Uint8Array; withoutPrice: number } | { failedSeries: number; failedDay: number } {
    const snapshotsAt = series.map((one, j) => (one === this.series[j] ? this.snapshotsAt[j]! : this.layOut(one, null)));
    const count = series.length;
    let rowBytes = DAY_BYTES;
    for (const one of series) {
      let longest = 1;
      for (const balance of one.balances) if (balance.length > longest) longest = balance.length;
      rowBytes += this.slot(one).prefixLength + longest + POSITION_BYTES + 2 * NUMBER_BYTES;
    }
    const table = this.free;
    const cursors = table + 16 * count;
    const scratch = align(cursors + 4 * count);
    const out = scratch + 12 * count;
    this.reserve(out + rowBytes * (lastDay - firstDay + 1) + PIECE_SLACK);
    for (let j = 0; j < count; j++) {
      const one = series[j]!;
      const slot = this.slot(one);
      const entry = table + 16 * j;
      this.view.setUint32(entry, slot.prefix, true);
      this.view.setUint32(entry + 4, slot.prices, true);
      this.view.setInt32(entry + 8, one.days.length, true);
      this.view.setUint32(entry + 12, snapshotsAt[j]!, true);
    }
    const withoutPriceBefore = this.exports.positionsWithoutPrice.value as number;
    const length = this.exports.writeDays(table, count, firstDay, lastDay, out, scratch, cursors);
    if (length < 0) return { failedSeries: this.exports.failedSeries.value as number, failedDay: this.exports.failedDay.value as number };
    return { rows: this.bytes.subarray(out, out + length), withoutPrice: (this.exports.positionsWithoutPrice.value as number) - withoutPriceBefore };
  }

  /** Writes a series' snapshots and balance texts (each after the series' prefix) at the free end; returns where the snapshots are. */
  private layOut(one: EndOfDaySeries, timestamps: ArrayLike<number> | null): number {
    const { prefix, prefixLength } = this.slot(one);
    const count = one.days.length;
    let textBytes = prefixLength * count;
    for (const balance of one.balances) textBytes += balance.length;
    const at = align(this.free);
    let text = at + SNAPSHOT * count;
    this.reserve(text + textBytes);
    const { view } = this;
    for (let k = 0; k < count; k++) {
      const snapshot = at + SNAPSHOT * k;
      const balance = one.balances[k]!;
      this.bytes.copyWithin(text, prefix + 1, prefix + 1 + prefixLength);
      text += prefixLength;
      view.setInt32(snapshot, one.days[k]!, true);
      view.setUint32(snapshot + 4, text, true);
      view.setUint32(snapshot + 8, balance.length, true);
      view.setUint32(snapshot + 12, balance === '0' ? 1 : 0, true);
      view.setFloat64(snapshot + 16, Number(balance), true);
      view.setFloat64(snapshot + 24, timestamps === null ? 0 : timestamps[k]!, true);
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
    const { memory } = this.exports;
    if (end <= memory.buffer.byteLength) return;
    memory.grow(Math.ceil((end - memory.buffer.byteLength) / 65536));
    this.refreshViews();
  }

  private refreshViews(): void {
    this.bytes = new Uint8Array(this.exports.memory.buffer);
    this.view = new DataView(this.exports.memory.buffer);
  }
}

const align = (offset: number) => Math.ceil(offset / 8) * 8;

// TEMPORARY (issue 29): WS_DOCUMENT_WRITER=js builds with the JavaScript writer of document-bytes-js.ts (worker threads inherit the variable); both writers have this interface.
export type DocumentBytes = Pick<WasmDocumentBytes, keyof WasmDocumentBytes>;
export const DocumentBytes: new (prices: PriceBook, chains: string[]) => DocumentBytes = process.env.WS_DOCUMENT_WRITER === 'js' ? DocumentBytesJs : WasmDocumentBytes;
