/**
 * The bulk of each wallet's documents (the snapshot arrays of the history document, the day rows of
 * the daily document) written in plain JavaScript into a growing Node Buffer: the same interface
 * and the same bytes as the WebAssembly writer of document-bytes.ts, measured against it (issue 29).
 * What the documents hold is decided in build/compute/history.ts and build/compute/daily.ts; the
 * rules of the day rows are stated in build/write/daily-document.ts.
 *
 * Every number is JavaScript's own text for it (`String()`), so no number writer is needed here.
 * The rest of a row is pieces of ASCII made once (per thread, per day or per snapshot) as bytes and
 * copied with `set()`, a memory copy: copying them character by character from strings cost twice
 * as much as the whole WebAssembly writer.
 */
import { TOKEN_KEYS } from '../../schemas/token-keys.ts';
import { priceKey, type EndOfDaySeries, type PriceBook, type TokenSeries } from '../compute/wallet-series.ts';

const ascii = (text: string) => Buffer.from(text, 'latin1');
const COMMA = 0x2c;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const TOTAL_HEAD = ascii('","totalValueUsd":');
const POSITIONS_HEAD = ascii(',"positions":[');
const NO_PRICE = ascii(',"usdPerToken":0,"valueUsd":');
const TIMESTAMP_HEAD = ascii('","timestamp":');
const BALANCE_HEAD = ascii(',"balance":');

/** A (chain, token)'s price on each day from its first: the value and the text around it. */
interface Prices {
  firstDay: number;
  values: Float64Array;
  /** `,"usdPerToken":<price>,"valueUsd":` per day. */
  pieces: Uint8Array[];
}

export class DocumentBytesJs {
  private bytes = Buffer.allocUnsafeSlow(1 << 20);
  /** Where the next byte goes; each call's output starts at 0 (valid until the next call). */
  private end = 0;
  /** Per (chain, token): the opening of its positions, `{"token":"<key>","chainId":<id>,"balance":`. */
  private readonly prefixes = new Map<string, string>();
  private readonly prices = new Map<string, Prices>();
  /** Per day: `{"date":"YYYY-MM-DD` (the head of a day row and of a snapshot). */
  private readonly dateHeads = new Map<number, Uint8Array>();
  /** The current wallet's series. */
  private series: TokenSeries[] = [];

  constructor(prices: PriceBook, chains: string[]) {
    for (const [key, series] of prices) {
      const pieces = series.texts.map((text) => ascii(`,"usdPerToken":${text},"valueUsd":`));
      this.prices.set(key, { firstDay: series.firstDay, values: series.values, pieces });
    }
    for (const chainId of chains) {
      for (let tokenIndex = 0; tokenIndex < TOKEN_KEYS.length; tokenIndex++) {
        this.prefixes.set(priceKey(chainId, tokenIndex), `{"token":"${TOKEN_KEYS[tokenIndex]}","chainId":${chainId},"balance":`);
      }
    }
  }

  /** The wallet whose series `snapshots` writes from. */
  startWallet(series: TokenSeries[]): void {
    this.series = series;
  }

  /** The snapshots of the wallet's series `j`, comma-separated, as bytes valid until the next call. */
  snapshots(j: number): Uint8Array {
    const { days, timestamps, balances } = this.series[j]!;
    this.end = 0;
    for (let k = 0; k < days.length; k++) {
      if (k !== 0) this.byte(COMMA);
      this.put(this.dateHead(days[k]!));
      this.put(TIMESTAMP_HEAD);
      // An integer (Unix seconds): the WebAssembly writer truncates it likewise.
      this.text(String(Math.trunc(timestamps[k]!)));
      this.put(BALANCE_HEAD);
      this.text(balances[k]!);
      this.byte(CLOSE_BRACE);
    }
    return this.bytes.subarray(0, this.end);
  }

  /**
   * The rows of days `firstDay..lastDay`, comma-separated, as bytes valid until the next call.
   * Returns the (series, day) whose value is not finite instead, when one is not.
   */
  dayRows(series: EndOfDaySeries[], firstDay: number, lastDay: number): { rows: Uint8Array; withoutPrice: number } | { failedSeries: number; failedDay: number } {
    const count = series.length;
    // Per series and snapshot, once per call rather than once per day: the position's opening
    // and the balance as the double that valueUsd multiplies (the same `Number()` as the module's).
    const openings = series.map((one) => {
      const prefix = this.prefix(one);
      return one.balances.map((balance) => ascii(prefix + balance));
    });
    const amounts = series.map((one) => Float64Array.from(one.balances, Number));
    const prices = series.map((one) => this.prices.get(priceKey(one.chainId, one.tokenIndex)) ?? null);
    // Per series, for the day being written: its last snapshot on or before the day (-1: none
    // yet), whether it is listed (a balance that is not zero), its value and its price's text.
    const cursors = new Int32Array(count).fill(-1);
    const listed = new Uint8Array(count);
    const values = new Float64Array(count);
    const pieces = new Array<Uint8Array>(count);
    let withoutPrice = 0;
    this.end = 0;
    for (let day = firstDay; day <= lastDay; day++) {
      // The values first: the day's total comes before its positions.
      let total = 0;
      for (let j = 0; j < count; j++) {
        const { days, balances } = series[j]!;
        let cursor = cursors[j]!;
        while (cursor + 1 < days.length && days[cursor + 1]! <= day) cursor++;
        cursors[j] = cursor;
        listed[j] = 0;
        if (cursor < 0 || balances[cursor] === '0') continue;
        const price = prices[j];
        let usdPerToken = 0;
        if (price !== null && day >= price.firstDay) {
          usdPerToken = price.values[day - price.firstDay]!;
          pieces[j] = price.pieces[day - price.firstDay]!;
        } else {
          withoutPrice++;
          pieces[j] = NO_PRICE;
        }
        const value = amounts[j]![cursor]! * usdPerToken;
        if (!Number.isFinite(value)) return { failedSeries: j, failedDay: day };
        // The plain left-to-right sum, in position order (daily-document.ts).
        total += value;
        values[j] = value;
        listed[j] = 1;
      }
      // Finite values can still add up to more than a double holds: refused like a value (the
      // module writes such a total as 1.797693134862316e+308, which reads back as Infinity).
      if (!Number.isFinite(total)) return { failedSeries: listed.lastIndexOf(1), failedDay: day };
      if (day !== firstDay) this.byte(COMMA);
      this.put(this.dateHead(day));
      this.put(TOTAL_HEAD);
      this.text(String(total));
      this.put(POSITIONS_HEAD);
      let first = true;
      for (let j = 0; j < count; j++) {
        if (listed[j] === 0) continue;
        if (!first) this.byte(COMMA);
        first = false;
        this.put(openings[j]![cursors[j]!]!);
        this.put(pieces[j]!);
        this.text(String(values[j]!));
        this.byte(CLOSE_BRACE);
      }
      this.byte(CLOSE_BRACKET);
      this.byte(CLOSE_BRACE);
    }
    return { rows: this.bytes.subarray(0, this.end), withoutPrice };
  }

  private prefix(one: EndOfDaySeries): string {
    const prefix = this.prefixes.get(priceKey(one.chainId, one.tokenIndex));
    if (prefix === undefined) throw new Error(`no prefix for chain ${one.chainId}, token ${one.tokenIndex}`);
    return prefix;
  }

  private dateHead(day: number): Uint8Array {
    let head = this.dateHeads.get(day);
    if (head === undefined) {
      // toISOString's date is the proleptic Gregorian one the module writes, for years 1 to 9999.
      head = ascii(`{"date":"${new Date(day * 86_400_000).toISOString().slice(0, 10)}`);
      this.dateHeads.set(day, head);
    }
    return head;
  }

  /** Bytes made by `ascii`. */
  private put(piece: Uint8Array): void {
    if (this.end + piece.length > this.bytes.length) this.grow(piece.length);
    this.bytes.set(piece, this.end);
    this.end += piece.length;
  }

  /** A short ASCII text (a number, a balance): a loop costs less than a native call here. */
  private text(text: string): void {
    const length = text.length;
    if (this.end + length > this.bytes.length) this.grow(length);
    const { bytes } = this;
    const at = this.end;
    for (let i = 0; i < length; i++) bytes[at + i] = text.charCodeAt(i);
    this.end = at + length;
  }

  private byte(value: number): void {
    if (this.end === this.bytes.length) this.grow(1);
    this.bytes[this.end++] = value;
  }

  /** Doubles the buffer (or more) and keeps what is written so far. */
  private grow(more: number): void {
    const grown = Buffer.allocUnsafeSlow(Math.max(2 * this.bytes.length, this.end + more));
    this.bytes.copy(grown, 0, 0, this.end);
    this.bytes = grown;
  }
}
