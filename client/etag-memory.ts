/**
 * The documents a client has seen, by URL, with their ETags, so that it can ask again with
 * `If-None-Match` and take a 304 as "the same document". Bounded: the least recently used URL is
 * forgotten first. The text is kept, not the parsed value, so that a caller who edits a document
 * it was given never changes what a later 304 resolves to.
 */
export interface Remembered {
  etag: string;
  text: string;
}

export class EtagMemory {
  readonly #entries = new Map<string, Remembered>();

  constructor(readonly capacity: number) {}

  get(url: string): Remembered | undefined {
    const found = this.#entries.get(url);
    if (found) {
      // A Map iterates in insertion order: re-inserting makes this URL the most recently used.
      this.#entries.delete(url);
      this.#entries.set(url, found);
    }
    return found;
  }

  set(url: string, remembered: Remembered): void {
    if (this.capacity <= 0) return;
    this.#entries.delete(url);
    this.#entries.set(url, remembered);
    while (this.#entries.size > this.capacity) this.#entries.delete(this.#entries.keys().next().value!);
  }

  get size(): number {
    return this.#entries.size;
  }
}
