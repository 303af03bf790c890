/**
 * The archives and the index of one shard's pack, sent to where the pack goes (a bucket, or the
 * local bucket of `serve --runtime workerd`): an object stored whole already (same size and MD5,
 * a one-request upload's ETag) is skipped, so that a publish stopped midway and run again sends
 * only what is missing; at most ARCHIVES_IN_FLIGHT are sent at once, each holding up to 64 MiB.
 * Both packing paths use it: a tree of files packed as it is read (pack-shard.ts), and a packed
 * folder whose archives are sent as `build --packed` wrote them (packed-tree.ts).
 */
import crypto from 'node:crypto';

/** Archives being sent at once: each holds up to 64 MiB in memory until it is stored. */
const ARCHIVES_IN_FLIGHT = 2;

/** Where a shard's archives and index go. */
export interface PackTarget {
  /** What the shard's pack folder holds already, by its path in the folder: size and MD5 (a one-request upload's ETag). */
  stored: Map<string, { size: number; md5: string }>;
  /** Stores the bytes; they are reused once the promise settles (copy them to keep them). */
  put(pathInFolder: string, bytes: Uint8Array): Promise<void>;
}

export interface SentFigures {
  /** Archives sent, and their bytes (the index's too). */
  sent: { objects: number; bytes: number };
  /** Archives stored already whole (a run stopped midway sent them). */
  skipped: { objects: number; bytes: number };
  /** The pack's bytes in the store: its archives and its index. */
  storedBytes: number;
}

export class ArchiveSender {
  readonly figures: SentFigures = { sent: { objects: 0, bytes: 0 }, skipped: { objects: 0, bytes: 0 }, storedBytes: 0 };
  private readonly sending = new Set<Promise<void>>();
  private failure: unknown = null;

  constructor(private readonly target: PackTarget) {}

  /** Sends (or skips) one object; `release` is called once its bytes are no longer needed (stored, skipped or failed). */
  async send(name: string, bytes: Uint8Array, release = () => {}): Promise<void> {
    this.figures.storedBytes += bytes.length;
    const stored = this.target.stored.get(name);
    if (stored && stored.size === bytes.length && stored.md5 === crypto.createHash('md5').update(bytes).digest('hex')) {
      this.figures.skipped.objects++;
      this.figures.skipped.bytes += bytes.length;
      release();
      return;
    }
    while (this.sending.size >= ARCHIVES_IN_FLIGHT) await Promise.race(this.sending);
    if (this.failure !== null) {
      release();
      throw this.failure;
    }
    const put = this.target
      .put(name, bytes)
      .finally(release)
      .then(
        () => {
          this.figures.sent.objects++;
          this.figures.sent.bytes += bytes.length;
        },
        (error: unknown) => {
          this.failure ??= error;
        },
      );
    const tracked = put.finally(() => this.sending.delete(tracked));
    this.sending.add(tracked);
  }

  /** Throws the first failed upload's error, if any. */
  throwIfFailed(): void {
    if (this.failure !== null) throw this.failure;
  }

  /** Waits for every upload; throws the first failure. */
  async finish(): Promise<void> {
    await Promise.all(this.sending);
    this.throwIfFailed();
  }

  /** Waits for every upload, whatever their outcome (after a failure elsewhere). */
  async settle(): Promise<void> {
    await Promise.allSettled(this.sending);
  }
}
