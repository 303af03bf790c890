/**
 * The points histories' rows as they cross from the streaming thread to a document thread, which
 * writes them as documents (points-history.ts streams them; document-thread.ts assembles them):
 * all numbers, in typed arrays that are transferred, not copied (only the addresses are strings),
 * so that the text of every day is made on both cores, not on the streaming thread.
 */
import { dayText } from '../compute/days.ts';
import { GrowingArray } from './wallet-batch.ts';
import type { DocumentSink } from '../compute/wallet-series.ts';
import type { HistoryDayBytes } from './document-bytes.ts';

export interface HistoryRows {
  wallets: string[];
  /** Per wallet, how many seasons it has. */
  seasonsPerWallet: Int32Array;
  /** Per wallet-season: the season, and how many days. */
  seasons: Int32Array;
  daysPerSeason: Int32Array;
  /** Per day: its day number (days since 1970-01-01), points, running total, and rank (0: none, written null). */
  days: Int32Array;
  points: Float64Array;
  totals: Float64Array;
  ranks: Int32Array;
  /** Each season's `asOf` (its day A), by season number. */
  asOf: Record<number, string>;
}

/** Collects a batch of histories as rows pass, a wallet's seasons in order, each season's days in order. */
export class HistoryRowsBuilder {
  private wallets: string[] = [];
  private readonly seasonsPerWallet = new GrowingArray(Int32Array);
  private readonly seasons = new GrowingArray(Int32Array);
  private readonly daysPerSeason = new GrowingArray(Int32Array);
  private readonly days = new GrowingArray(Int32Array);
  private readonly points = new GrowingArray(Float64Array);
  private readonly totals = new GrowingArray(Float64Array);
  private readonly ranks = new GrowingArray(Int32Array);

  constructor(private readonly asOf: Record<number, string>) {}

  get walletCount(): number {
    return this.wallets.length;
  }

  get dayCount(): number {
    return this.days.length;
  }

  startWallet(address: string): void {
    this.wallets.push(address);
    this.seasonsPerWallet.push(0);
  }

  startSeason(season: number): void {
    this.seasonsPerWallet.increment();
    this.seasons.push(season);
    this.daysPerSeason.push(0);
  }

  /** The current season's next `count` days, from `from` on in these columns (a rank of 0: none). */
  addDays(
    columns: {
      days: Int32Array<ArrayBufferLike>;
      points: Float64Array<ArrayBufferLike>;
      totals: Float64Array<ArrayBufferLike>;
      ranks: Int32Array<ArrayBufferLike>;
    },
    from: number,
    count: number,
  ): void {
    this.daysPerSeason.add(count);
    this.days.pushAll(columns.days, from, count);
    this.points.pushAll(columns.points, from, count);
    this.totals.pushAll(columns.totals, from, count);
    this.ranks.pushAll(columns.ranks, from, count);
  }

  take(): HistoryRows {
    const rows: HistoryRows = {
      wallets: this.wallets,
      seasonsPerWallet: this.seasonsPerWallet.take(),
      seasons: this.seasons.take(),
      daysPerSeason: this.daysPerSeason.take(),
      days: this.days.take(),
      points: this.points.take(),
      totals: this.totals.take(),
      ranks: this.ranks.take(),
      asOf: this.asOf,
    };
    this.wallets = [];
    return rows;
  }
}

export function historyTransferList(rows: HistoryRows): ArrayBuffer[] {
  return [rows.seasonsPerWallet, rows.seasons, rows.daysPerSeason, rows.days, rows.points, rows.totals, rows.ranks].map(
    (array) => array.buffer as ArrayBuffer,
  );
}

/**
 * Each wallet's points history document (schemas/points-history.ts) into `out`, calling `ended`
 * after each: the day rows written by `days` (its numbers as String() writes them, which is how
 * JSON.stringify writes the leaderboard's, so that a day A row reads the same as the standing).
 */
export function writeHistories(rows: HistoryRows, days: HistoryDayBytes, out: DocumentSink, ended: (wallet: number) => void): void {
  let season = 0;
  let day = 0;
  for (let w = 0; w < rows.wallets.length; w++) {
    out.text('{"seasons":[');
    for (let s = 0; s < rows.seasonsPerWallet[w]!; s++, season++) {
      const number = rows.seasons[season]!;
      out.text(`${s === 0 ? '' : ','}{"season":${number},"asOf":"${rows.asOf[number]}","days":[`);
      const count = rows.daysPerSeason[season]!;
      const written = days.rows(rows, day, count);
      if (!(written instanceof Uint8Array))
        throw new Error(`the points history of ${rows.wallets[w]} in season ${number} is not finite on ${dayText(written.failedDay)}`);
      out.bytes(written);
      day += count;
      out.text(']}');
    }
    out.text(']}');
    ended(w);
  }
}
