/**
 * The store of the Cloudflare Worker: an R2 bucket in the layout `publish` writes (tree/bucket.ts):
 * `<prefix>live.json` names the version readers see, `<prefix>versions/<id>/<tree path>` holds
 * every file of that night's tree.
 *
 * A request reads the pointer once and every file it needs from that one version, so it never
 * combines objects of two nights. Objects may be stored gzip-compressed (Content-Encoding); their
 * user metadata carries the sha256 of the uncompressed bytes and the source file's mtime, so that
 * ETag and Last-Modified are the same as the Node server's for the same tree.
 *
 * A daily document may be stored in two parts: the object under the version names, in its
 * metadata, a blob (`<prefix>blobs/<sha256>`, the rows of closed months, shared by the versions
 * that hold them) and the offset its bytes go to. Such a document is assembled here and answered
 * whole; a missing blob is an error of the store (503), never a shorter document.
 */
import { blobKey, POINTER_KEY, versionPrefix } from '../tree/bucket.ts';
import { gunzip } from './gunzip.ts';
import { StoreUnavailableError, type StoredFile, type TreeStore, type TreeVersion } from './store.ts';

/** The few members of Workers' R2 types that the store uses (a real binding has more). */
export interface R2ObjectLike {
  key: string;
  uploaded: Date;
  httpEtag: string;
  httpMetadata?: { contentEncoding?: string };
  customMetadata?: Record<string, string>;
  arrayBuffer(): Promise<ArrayBuffer>;
}

export interface R2BucketLike {
  get(key: string): Promise<R2ObjectLike | null>;
}


/**
 * How long an isolate keeps the pointer before reading it again: a published night reaches every
 * reader within this time, and a busy Worker reads the pointer once per isolate per interval
 * instead of once per request.
 */
const POINTER_TTL_MS = 5_000;

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
  private pointer: { version: string; readAt: number } | null = null;

  /**
   * `cache`: the colo's cache, where each file read (a daily document assembled from its two
   * parts, an address without a file) is kept under its versioned key, so that a popular wallet
   * costs R2 one read per colo and version instead of one or two per request.
   */
  constructor(private readonly bucket: R2BucketLike, private readonly prefix = '', private readonly cache: CacheLike | null = null) {}

  async open(): Promise<TreeVersion> {
    const version = await this.liveVersion();
    const base = `${this.prefix}${versionPrefix(version)}`;
    return { read: (path) => this.read(`${base}${path}`) };
  }

  private async liveVersion(): Promise<string> {
    const now = Date.now();
    if (this.pointer && now - this.pointer.readAt < POINTER_TTL_MS) return this.pointer.version;
    const object = await this.bucket.get(`${this.prefix}${POINTER_KEY}`);
    if (!object) throw new StoreUnavailableError(`no ${this.prefix}${POINTER_KEY} in the bucket: nothing is published yet`);
    const { version } = JSON.parse(new TextDecoder().decode(await object.arrayBuffer())) as { version?: unknown };
    if (typeof version !== 'string' || version === '') throw new StoreUnavailableError(`${this.prefix}${POINTER_KEY} names no version`);
    this.pointer = { version, readAt: now };
    return version;
  }

  private async read(key: string): Promise<StoredFile | null> {
    if (!this.cache) return this.readBucket(key);
    // A synthetic URL: the key (with its version) is the whole identity of the entry.
    const request = new Request(`https://tree.wallet-snapshot.invalid/${key}`);
    const hit = await this.cache.match(request);
    if (hit) return fromCached(hit);
    const file = await this.readBucket(key);
    await this.cache.put(request, toCached(file));
    return file;
  }

  private async readBucket(key: string): Promise<StoredFile | null> {
    const object = await this.bucket.get(key);
    if (!object) return null;
    const file: StoredFile = {
      bytes: new Uint8Array(await object.arrayBuffer()),
      encoding: object.httpMetadata?.contentEncoding === 'gzip' ? 'gzip' : null,
      // Objects put without the metadata (by hand) still get a validator: R2's own MD5 ETag.
      digest: object.customMetadata?.sha256 ?? object.httpEtag.replaceAll('"', ''),
      modified: Number(object.customMetadata?.mtime ?? object.uploaded.getTime()),
    };
    const blob = object.customMetadata?.blob;
    return blob === undefined ? file : this.assemble(key, file, blob, object.customMetadata!);
  }

  /** The whole document: the blob's bytes put back at `blob-at`, checked against `size`. */
  private async assemble(key: string, rest: StoredFile, blob: string, metadata: Record<string, string>): Promise<StoredFile> {
    const blobObject = await this.bucket.get(`${this.prefix}${blobKey(blob)}`);
    if (!blobObject) throw new StoreUnavailableError(`${key} refers to ${this.prefix}${blobKey(blob)}, which is missing`);
    const [head, middle] = await Promise.all([
      rest.encoding === 'gzip' ? gunzip(rest.bytes) : rest.bytes,
      (async () => {
        const bytes = new Uint8Array(await blobObject.arrayBuffer());
        return blobObject.httpMetadata?.contentEncoding === 'gzip' ? gunzip(bytes) : bytes;
      })(),
    ]);
    const at = Number(metadata['blob-at']);
    const size = Number(metadata.size ?? head.length + middle.length);
    if (!Number.isInteger(at) || at < 0 || at > head.length || head.length + middle.length !== size) {
      throw new StoreUnavailableError(`${key} and ${this.prefix}${blobKey(blob)} do not assemble into the ${size} bytes its metadata names`);
    }
    const whole = new Uint8Array(size);
    whole.set(head.subarray(0, at), 0);
    whole.set(middle, at);
    whole.set(head.subarray(at), at + middle.length);
    return { ...rest, bytes: whole, encoding: null };
  }
}

/** A file (or its absence) as a cache entry: its bytes as stored, the rest in headers. */
function toCached(file: StoredFile | null): Response {
  const headers = { 'Cache-Control': `public, max-age=${CACHED_FILE_SECONDS}`, 'Content-Type': 'application/octet-stream' };
  if (!file) return new Response(null, { headers: { ...headers, 'X-Tree-File': 'none' } });
  return new Response(file.bytes, {
    headers: { ...headers, 'X-Tree-File': 'stored', 'X-Tree-Encoding': file.encoding ?? 'identity', 'X-Tree-Digest': file.digest, 'X-Tree-Modified': String(file.modified) },
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
