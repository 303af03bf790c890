/**
 * The index of a packed shard (tree/bucket.ts): where each file of the tree is in the shard's
 * archives, with what a reader answers it with (its sha256, the base of the ETag; its mtime, the
 * Last-Modified; its encoding). Publish writes it, the Worker reads it; no node: modules here.
 *
 * A fixed-size hash table of 64-byte entries, so that a reader finds a path's entry with one range
 * read of a few kilobytes, without reading or holding the whole index (about 40 MB for a shard
 * of 125,000 wallets): a path's home slot is computed from its hash and the slot count, and its
 * entry is at most `window - 1` slots after it. The writer places the entries in order of home
 * slot (linear probing, filled in that order, which keeps the longest displacement short) and
 * records `slots`, `length` (slots used, the last displaced entries included) and `window` in the
 * version's records and the pointer (live-pointer.ts), which the reader holds already.
 *
 * Entry (little-endian):
 *   0   8  the path's hash: the first 8 bytes of sha256(UTF-8 tree path), big-endian
 *   8   2  the archive's number (1..65535); 0 marks an empty slot
 *   10  6  where the member's data starts in the archive
 *   16  4  its length (the bytes as stored)
 *   20  1  1 when stored gzip-compressed
 *   21  6  the file's mtime, milliseconds since the epoch
 *   27  5  zero
 *   32  32 sha256 of the file's uncompressed bytes
 */

export const ENTRY_BYTES = 64;

/**
 * Entries per slot at most. At 0.75 the index is 85 bytes a file, and the window a reader reads
 * stays a few kilobytes (docs/decisions.md, "Packed versions").
 */
const LOAD_FACTOR = 0.75;

/** What a reader needs to find an entry of a shard: facts of the index, held in the pointer. */
export interface IndexShape {
  /** The hash table's slots: a path's home slot is computed from them. */
  slots: number;
  /** Slots in the index object (at least `slots`: the last entries may be displaced past the end). */
  length: number;
  /** Slots to read from a home slot on to be sure to meet its entry. */
  window: number;
}

export interface IndexEntry {
  pathHash: bigint;
  archive: number;
  offset: number;
  length: number;
  gzip: boolean;
  mtimeMs: number;
  /** 64 hex digits. */
  sha256: string;
}

/** The first 8 bytes of sha256 of the UTF-8 path, as an unsigned 64-bit integer (web crypto: the Worker and Node alike). */
export async function pathHashOf(treePath: string): Promise<bigint> {
  return pathHashFromDigest(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(treePath))));
}

/** A path's hash from the sha256 of its UTF-8 bytes, however computed (publish's threads hash with node:crypto, synchronously). */
export function pathHashFromDigest(digest: Uint8Array): bigint {
  return new DataView(digest.buffer, digest.byteOffset, digest.byteLength).getBigUint64(0);
}

function homeSlot(pathHash: bigint, slots: number): number {
  // The hash scaled to [0, slots): uniform, and no modulo bias.
  return Number((pathHash * BigInt(slots)) >> 64n);
}

/** The index of these entries (any order: the same order gives the same bytes), and its shape. */
export function buildIndex(entries: readonly IndexEntry[]): { bytes: Uint8Array<ArrayBuffer>; shape: IndexShape } {
  const records = new EntryRecords(entries.length);
  for (const entry of entries) records.add(entry);
  return records.buildIndex();
}

/**
 * Entries as the index stores them, 64 bytes each, in the order added: a writer of 400,000 members
 * holds 25.6 MB of them rather than 400,000 objects, each with a bigint and a string.
 */
export class EntryRecords {
  private bytes: Uint8Array<ArrayBuffer>;
  private view: DataView;
  count = 0;

  constructor(capacity = 1024) {
    this.bytes = new Uint8Array(Math.max(1, capacity) * ENTRY_BYTES);
    this.view = new DataView(this.bytes.buffer);
  }

  add(entry: IndexEntry): void {
    if ((this.count + 1) * ENTRY_BYTES > this.bytes.length) {
      const grown = new Uint8Array(this.bytes.length * 2);
      grown.set(this.bytes);
      this.bytes = grown;
      this.view = new DataView(grown.buffer);
    }
    writeEntry(this.view, this.bytes, this.count * ENTRY_BYTES, entry);
    this.count++;
  }

  /** The sha256 of the entry added `i`-th, as the 32 bytes it holds (a view, not a copy). */
  sha256Of(i: number): Uint8Array<ArrayBuffer> {
    return this.bytes.subarray(i * ENTRY_BYTES + 32, (i + 1) * ENTRY_BYTES);
  }

  /** The index of the entries (the same entries in the same order give the same bytes), and its shape. */
  buildIndex(): { bytes: Uint8Array<ArrayBuffer>; shape: IndexShape } {
    const { count, view } = this;
    const hashOf = (i: number) => view.getBigUint64(i * ENTRY_BYTES);
    const slots = Math.max(1, Math.ceil(count / LOAD_FACTOR));
    const homes = new Float64Array(count);
    for (let i = 0; i < count; i++) homes[i] = homeSlot(hashOf(i), slots);
    // By home slot; a stable sort keeps entries of one home in the order given.
    const order = Array.from({ length: count }, (_, i) => i).sort((a, b) => homes[a]! - homes[b]!);
    let next = 0;
    let window = 1;
    const positions = new Float64Array(count);
    for (let k = 0; k < order.length; k++) {
      const i = order[k]!;
      const home = homes[i]!;
      // Two paths of one hash share a home: compare within the run of that home (a handful at most).
      for (let j = k - 1; j >= 0 && homes[order[j]!] === home; j--) {
        if (hashOf(order[j]!) === hashOf(i)) throw new Error(`two paths of the index share the hash ${hashOf(i).toString(16)}`);
      }
      const at = Math.max(home, next);
      positions[i] = at;
      window = Math.max(window, at - home + 1);
      next = at + 1;
    }
    const length = Math.max(slots, next);
    const bytes = new Uint8Array(length * ENTRY_BYTES);
    for (let i = 0; i < count; i++) bytes.set(this.bytes.subarray(i * ENTRY_BYTES, (i + 1) * ENTRY_BYTES), positions[i]! * ENTRY_BYTES);
    return { bytes, shape: { slots, length, window } };
  }
}

/** The byte range of the index to read for a path: its window of slots. */
export function windowOf(pathHash: bigint, shape: IndexShape): { offset: number; length: number; first: number } {
  const first = homeSlot(pathHash, shape.slots);
  const end = Math.min(first + shape.window, shape.length);
  return { offset: first * ENTRY_BYTES, length: (end - first) * ENTRY_BYTES, first };
}

/** The path's entry in `bytes`, which hold the index's slots from `firstSlot` on; null when it is not there. */
export function findEntry(bytes: Uint8Array, firstSlot: number, pathHash: bigint, shape: IndexShape): IndexEntry | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const home = homeSlot(pathHash, shape.slots);
  const from = (home - firstSlot) * ENTRY_BYTES;
  const to = Math.min(bytes.byteLength, (home - firstSlot + shape.window) * ENTRY_BYTES);
  for (let at = from; at + ENTRY_BYTES <= to; at += ENTRY_BYTES) {
    if (view.getUint16(at + 8, true) === 0) continue;
    if (view.getBigUint64(at) === pathHash) return readEntry(view, bytes, at);
  }
  return null;
}

function writeEntry(view: DataView, bytes: Uint8Array, at: number, entry: IndexEntry): void {
  if (entry.archive < 1 || entry.archive > 0xffff) throw new Error(`archive number ${entry.archive} is outside 1..65535`);
  view.setBigUint64(at, entry.pathHash);
  view.setUint16(at + 8, entry.archive, true);
  setUint48(view, at + 10, entry.offset);
  view.setUint32(at + 16, entry.length, true);
  view.setUint8(at + 20, entry.gzip ? 1 : 0);
  setUint48(view, at + 21, entry.mtimeMs);
  for (let i = 0; i < 32; i++)
    bytes[at + 32 + i] = (hexDigit(entry.sha256.charCodeAt(2 * i)) << 4) | hexDigit(entry.sha256.charCodeAt(2 * i + 1));
}

function readEntry(view: DataView, bytes: Uint8Array, at: number): IndexEntry {
  let sha256 = '';
  for (let i = 0; i < 32; i++) sha256 += bytes[at + 32 + i]!.toString(16).padStart(2, '0');
  return {
    pathHash: view.getBigUint64(at),
    archive: view.getUint16(at + 8, true),
    offset: getUint48(view, at + 10),
    length: view.getUint32(at + 16, true),
    gzip: view.getUint8(at + 20) === 1,
    mtimeMs: getUint48(view, at + 21),
    sha256,
  };
}

function hexDigit(code: number): number {
  // '0'..'9' are 48..57, 'a'..'f' 97..102 (a sha256 in lower-case hex).
  return code <= 57 ? code - 48 : code - 87;
}

function setUint48(view: DataView, at: number, value: number): void {
  view.setUint32(at, value % 0x1_0000_0000, true);
  view.setUint16(at + 4, Math.floor(value / 0x1_0000_0000), true);
}

function getUint48(view: DataView, at: number): number {
  return view.getUint32(at, true) + view.getUint16(at + 4, true) * 0x1_0000_0000;
}

/** How many entries the index holds (its slots in use), without reading them. */
export function countEntries(bytes: Uint8Array): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let count = 0;
  for (let at = 0; at + ENTRY_BYTES <= bytes.byteLength; at += ENTRY_BYTES) if (view.getUint16(at + 8, true) !== 0) count++;
  return count;
}

/** Every entry of an index's bytes, in slot order (the empty slots skipped): a scrub reads them all. */
export function readEntries(bytes: Uint8Array): IndexEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const entries: IndexEntry[] = [];
  for (let at = 0; at + ENTRY_BYTES <= bytes.byteLength; at += ENTRY_BYTES)
    if (view.getUint16(at + 8, true) !== 0) entries.push(readEntry(view, bytes, at));
  return entries;
}
