/**
 * What the request handler reads a snapshot tree through, on every host: a folder on disk (the
 * Node server), an R2 bucket (the Cloudflare Worker), an S3 prefix. Written against web
 * standards only, so the same handler runs everywhere.
 */

/** One version of one file of the tree. */
export interface StoredFile {
  /** The bytes as stored: gzip-compressed when `encoding` is 'gzip'. */
  bytes: Uint8Array<ArrayBuffer>;
  encoding: 'gzip' | null;
  /** The uncompressed bytes, when the store has them already (it inflated them to check them). */
  uncompressed?: Uint8Array<ArrayBuffer>;
  /** Hex digest of the uncompressed bytes (sha256), the base of the ETag on every host. */
  digest: string;
  /** Last modification, milliseconds since the epoch (Last-Modified). */
  modified: number;
}

/** One published version of the tree, read by one request from start to end. */
export interface TreeVersion {
  /** The file at a tree path (`v1/leaderboard/s1.json`), or null when the tree has none. */
  read(path: string): Promise<StoredFile | null>;
}

export interface TreeStore {
  /**
   * The version readers see now. A request reads every file it needs through the one version it
   * opened, so it never combines files of two builds, even when the tree is swapped meanwhile.
   */
  open(): Promise<TreeVersion>;
}

/** An error the store raises when the host cannot read right now (out of file descriptors...). */
export class StoreUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreUnavailableError';
  }
}
