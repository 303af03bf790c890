/**
 * The store of the Cloudflare Worker: an R2 bucket in the layout `publish` writes.
 *
 *   <prefix>live.json                        {"version": "<id>", ...}: the version readers see
 *   <prefix>versions/<id>/<tree path>        every file of that night's tree
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

export const POINTER_KEY = 'live.json';
export const versionPrefix = (version: string) => `versions/${version}/`;
export const blobKey = (sha256: string) => `blobs/${sha256}`;

/**
 * How long an isolate keeps the pointer before reading it again: a published night reaches every
 * reader within this time, and a busy Worker reads the pointer once per isolate per interval
 * instead of once per request.
 */
const POINTER_TTL_MS = 5_000;

export class R2TreeStore implements TreeStore {
  private pointer: { version: string; readAt: number } | null = null;

  constructor(private readonly bucket: R2BucketLike, private readonly prefix = '') {}

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
