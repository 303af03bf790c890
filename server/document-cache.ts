/**
 * Bytes of recently read tree files, for the daily documents: a bounded LRU, each entry checked
 * against the file's identity (inode, size, mtime) on every use, so a tree rebuilt under the
 * server is read afresh at once.
 */
import fs from 'node:fs';
import type { DailyRows } from './filter-daily.ts';

export interface CachedDocument {
  bytes: Buffer;
  /** Identity of the file version the text came from (also the base of its ETag). */
  version: string;
  /** Where its day rows are, once a from/to request has asked (a few KB beside the bytes). */
  dailyRows?: DailyRows;
}

export class DocumentCache {
  private readonly entries = new Map<string, CachedDocument>();
  private size = 0;

  constructor(private readonly maxBytes = 256 * 2 ** 20) {}

  /** The file's bytes, or null when it does not exist. */
  async read(file: string): Promise<CachedDocument | null> {
    // A synchronous stat of a cached inode costs less than the trip through libuv's pool.
    const stats = fs.statSync(file, { throwIfNoEntry: false });
    if (!stats) return null;
    const version = `${stats.ino.toString(36)}-${stats.size.toString(36)}-${Math.floor(stats.mtimeMs).toString(36)}`;
    const cached = this.entries.get(file);
    if (cached && cached.version === version) {
      // Re-inserting keeps the Map in least-recently-used order.
      this.entries.delete(file);
      this.entries.set(file, cached);
      return cached;
    }
    const document: CachedDocument = { bytes: await fs.promises.readFile(file), version };
    this.store(file, document);
    return document;
  }

  private store(file: string, document: CachedDocument): void {
    const previous = this.entries.get(file);
    if (previous) {
      this.size -= previous.bytes.length;
      this.entries.delete(file);
    }
    if (document.bytes.length > this.maxBytes / 4) return;
    this.entries.set(file, document);
    this.size += document.bytes.length;
    for (const [oldest, entry] of this.entries) {
      if (this.size <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.size -= entry.bytes.length;
    }
  }
}
