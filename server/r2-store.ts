/**
 * The store of the Cloudflare Worker: an R2 bucket in the layout `publish` writes (tree/bucket.ts).
 * `<prefix>live.json` names the version readers see and the shape of each shard's index; a file
 * of that version is a member of one of its shard's archives, found through the shard's index.
 *
 * A file costs R2 at most two reads: a window of a few kilobytes of the index (tree/pack-index.ts:
 * its slot is computed from the path and the shape the pointer gives), then a range read of the
 * member's bytes, answered as stored (gzip for text). An index small enough is read whole once
 * and held by the isolate, and a file then costs one read; the colo's cache, keyed by version,
 * answers a file read before with none. A request reads the pointer once and every file from that
 * one version, so it never combines files of two nights. The index entry carries the sha256 of
 * the uncompressed bytes and the file's mtime, so that ETag and Last-Modified are the Node
 * server's for the same tree.
 */
import { archiveName, INDEX_NAME, packFolder, packShardOf, POINTER_KEY, versionPrefix } from '../tree/bucket.ts';
import { parsePointer, type LivePointer, type PackedShard } from '../tree/live-pointer.ts';
import { ENTRY_BYTES, findEntry, pathHashOf, windowOf, type IndexEntry } from '../tree/pack-index.ts';
import { gunzip } from './gunzip.ts';
import { StoreUnavailableError, type StoredFile, type TreeStore, type TreeVersion } from './store.ts';

/** The few members of Workers' R2 types that the store uses (a real binding has more). */
interface R2ObjectLike {
  arrayBuffer(): Promise<ArrayBuffer>;
}

export interface R2BucketLike {
  get(key: string, options?: { range?: { offset: number; length: number } }): Promise<R2ObjectLike | null>;
}

/**
 * How long an isolate keeps the pointer before reading it again: a published night reaches every
 * reader within this time, and a busy Worker reads the pointer once per isolate per interval
 * instead of once per request.
 */
const POINTER_TTL_MS = 5_000;

/**
 * The largest index an isolate reads whole and holds (an isolate has 128 MB): 4 MiB is about
 * 49,000 files, a tree of some 12,000 wallets. A larger index is read a window at a time.
 */
const HELD_INDEX_BYTES = 4 * 1024 * 1024;

/** The few members of the Workers Cache API the store uses (`caches.open(name)` gives one). */
export interface CacheLike {
  match(request: Request): Promise<Response | undefined>;
  put(request: Request, response: Response): Promise<void>;
}

/**
 * How long the colo's cache keeps a file. Its key holds the version, whose objects never change,
 * so the entry can never be stale; the day bounds what an unused version holds in the cache.
 */
const CACHED_FILE_SECONDS = 86_400;

export class R2TreeStore implements TreeStore {
  private pointer: { live: LivePointer; readAt: number } | null = null;
  /** The indexes held whole, of the live version only: by `<version>/<shard>`. */
  private held = new Map<string, Promise<Uint8Array>>();

  /**
   * `cache`: the colo's cache, where each file read (an address without a file too) is kept under
   * its versioned key, so that a popular wallet costs R2 reads once per colo and version.
   * `heldIndexBytes`: the largest index held whole (0: none, to measure what holding saves).
   */
  constructor(
    private readonly bucket: R2BucketLike,
    private readonly prefix = '',
    private readonly cache: CacheLike | null = null,
    private readonly heldIndexBytes = HELD_INDEX_BYTES,
    options: { checkMembers?: boolean } = {},
  ) {
    this.checkMembers = options.checkMembers ?? true;
  }

  /**
   * `checkMembers`: whether each member read from R2 is checked against the sha256 its index
   * records before it is answered or cached (always, but to measure what the check costs).
   */
  private readonly checkMembers: boolean;

  async open(): Promise<TreeVersion> {
    const live = await this.liveVersion();
    return { read: (path) => this.read(live, path) };
  }

  private async liveVersion(): Promise<LivePointer> {
    const now = Date.now();
    if (this.pointer && now - this.pointer.readAt < POINTER_TTL_MS) return this.pointer.live;
    const pointer = await this.readObject(`${this.prefix}${POINTER_KEY}`);
    const pointerKey = `${this.prefix}${POINTER_KEY}`;
    if (!pointer) throw unavailable(`no ${pointerKey} in the bucket: nothing is published yet`, `${pointerKey} is missing`);
    const live = parsePointer(new TextDecoder().decode(pointer));
    if (!live)
      throw new StoreUnavailableError(
        `${this.prefix}${POINTER_KEY} is not a pointer this release of wallet-snapshot reads (publish the tree again)`,
      );
    if (this.pointer?.live.version !== live.version) this.held = new Map();
    this.pointer = { live, readAt: now };
    return live;
  }

  private async read(live: LivePointer, path: string): Promise<StoredFile | null> {
    if (!this.cache) return this.readBucket(live, path);
    // A synthetic URL: the version and the path are the whole identity of the entry.
    const request = new Request(`https://tree.wallet-snapshot.invalid/${this.prefix}${versionPrefix(live.version)}${path}`);
    // The cache is a saving, never a cause of failure: an error of its own is a miss, or not kept.
    const hit = await this.cache.match(request).catch(() => undefined);
    if (hit) return fromCached(hit);
    const file = await this.readBucket(live, path);
    await this.cache.put(request, toCached(file)).catch(() => {});
    return file;
  }

  private async readBucket(live: LivePointer, path: string): Promise<StoredFile | null> {
    const index = await packShardOf(path, live.shards.length);
    const shard = live.shards[index - 1]!;
    const folder = `${this.prefix}${versionPrefix(live.version)}${packFolder({ index, count: live.shards.length })}`;
    const pathHash = await pathHashOf(path);
    const entry = await this.findEntry(live.version, folder, index, shard, pathHash);
    if (!entry) return null;
    const key = `${folder}${archiveName(entry.archive)}`;
    const bytes = await this.readObject(key, { offset: entry.offset, length: entry.length });
    if (!bytes) {
      throw unavailable(`${key} is missing from version ${live.version}`, `${key} is missing (${path} of version ${live.version})`);
    }
    if (bytes.length !== entry.length) {
      const message = `${key} answered ${bytes.length} bytes at ${entry.offset} where its index names ${entry.length}`;
      throw unavailable(message, `${message} (${path})`);
    }
    const uncompressed = this.checkMembers ? await checkedBytes(bytes, entry.gzip, entry.sha256) : undefined;
    if (uncompressed === null) {
      // Not answered, not cached; the index is read again by the next request, in case it is what changed.
      this.held.delete(`${live.version}/${index}`);
      throw unavailable(
        'a stored document does not match the checksum its index records',
        `${key} bytes ${entry.offset}+${entry.length} (${path} of version ${live.version}) do not match the sha256 its index records`,
      );
    }
    // The inflated bytes go along: a client that does not accept gzip is answered with them.
    return { bytes, encoding: entry.gzip ? 'gzip' : null, uncompressed, digest: entry.sha256, modified: entry.mtimeMs };
  }

  /**
   * An object's bytes (a range of them), or null when there is no such object. Any failure of the
   * read (an error of the binding, a body cut short) is the store's: 503, logged with the key.
   */
  private async readObject(key: string, range?: { offset: number; length: number }): Promise<Uint8Array<ArrayBuffer> | null> {
    try {
      const object = await this.bucket.get(key, range ? { range } : undefined);
      return object ? new Uint8Array(await object.arrayBuffer()) : null;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const where = range ? ` bytes ${range.offset}+${range.length}` : '';
      throw unavailable(`reading ${key} failed`, `reading ${key}${where} failed: ${reason}`);
    }
  }

  private async findEntry(
    version: string,
    folder: string,
    index: number,
    shard: PackedShard,
    pathHash: bigint,
  ): Promise<IndexEntry | null> {
    const key = `${folder}${INDEX_NAME}`;
    if (shard.length * ENTRY_BYTES <= this.heldIndexBytes) {
      const heldKey = `${version}/${index}`;
      let whole = this.held.get(heldKey);
      if (!whole) {
        whole = this.readIndex(key, null, shard.length * ENTRY_BYTES);
        this.held.set(heldKey, whole);
        // A failed read is not held: the next request tries again.
        whole.catch(() => this.held.delete(heldKey));
      }
      return findEntry(await whole, 0, pathHash, shard);
    }
    const window = windowOf(pathHash, shard);
    return findEntry(await this.readIndex(key, window, window.length), window.first, pathHash, shard);
  }

  private async readIndex(key: string, range: { offset: number; length: number } | null, expected: number): Promise<Uint8Array> {
    const bytes = await this.readObject(key, range ?? undefined);
    if (!bytes) throw unavailable(`${key} is missing`, `${key} is missing`);
    if (bytes.length !== expected) {
      throw unavailable(`${key} answered ${bytes.length} bytes where the pointer's shape names ${expected}`, `${key} is cut short`);
    }
    return bytes;
  }
}

/**
 * The store's failure, logged (console.error: the Worker's log, `wrangler tail`) with what names
 * the object, and raised for the handler's 503.
 */
function unavailable(message: string, logged: string): StoreUnavailableError {
  console.error(`wallet-snapshot worker: ${logged}; answered 503`);
  return new StoreUnavailableError(message);
}

/**
 * A member's uncompressed bytes when they have the sha256 its index entry records, else null (a
 * gzip that does not inflate has none).
 */
async function checkedBytes(bytes: Uint8Array<ArrayBuffer>, gzip: boolean, sha256: string): Promise<Uint8Array<ArrayBuffer> | null> {
  let plain: Uint8Array<ArrayBuffer>;
  try {
    plain = gzip ? await gunzip(bytes) : bytes;
  } catch {
    return null;
  }
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', plain));
  let hex = '';
  for (const byte of digest) hex += byte.toString(16).padStart(2, '0');
  return hex === sha256 ? plain : null;
}

/** A file (or its absence) as a cache entry: its bytes as stored, the rest in headers. */
function toCached(file: StoredFile | null): Response {
  const headers = { 'Cache-Control': `public, max-age=${CACHED_FILE_SECONDS}`, 'Content-Type': 'application/octet-stream' };
  if (!file) return new Response(null, { headers: { ...headers, 'X-Tree-File': 'none' } });
  return new Response(file.bytes, {
    headers: {
      ...headers,
      'X-Tree-File': 'stored',
      'X-Tree-Encoding': file.encoding ?? 'identity',
      'X-Tree-Digest': file.digest,
      'X-Tree-Modified': String(file.modified),
    },
  });
}

async function fromCached(response: Response): Promise<StoredFile | null> {
  if (response.headers.get('X-Tree-File') !== 'stored') return null;
  return {
    bytes: new Uint8Array(await response.arrayBuffer()),
    encoding: response.headers.get('X-Tree-Encoding') === 'gzip' ? 'gzip' : null,
    digest: response.headers.get('X-Tree-Digest')!,
    modified: Number(response.headers.get('X-Tree-Modified')),
  };
}
