/**
 * Miniflare's R2 bucket as the local preview uses it, each call made once more when its loopback
 * connection to workerd was dropped before any answer came (undici's `UND_ERR_SOCKET`, "other side
 * closed"). Miniflare reaches the bucket over kept-alive HTTP, and under load workerd can close a
 * connection just as the next call is sent on it. Every call the preview makes is safe to repeat:
 * a put writes the same bytes under the same key, a delete of a deleted key is no error.
 */

/** The members of Miniflare's R2 bucket that loading a tree uses. */
export interface LocalBucket {
  get(key: string): Promise<{ arrayBuffer(): Promise<ArrayBuffer> } | null>;
  put(
    key: string,
    value: Uint8Array | string,
    options: { httpMetadata: Record<string, string>; customMetadata?: Record<string, string> },
  ): Promise<unknown>;
  list(options: { prefix: string; cursor?: string }): Promise<{ objects: { key: string }[]; truncated: boolean; cursor?: string }>;
  delete(keys: string[]): Promise<void>;
}

/** Calls made in all, the first included, before a dropped connection is the caller's error. */
export const DROPPED_CONNECTION_ATTEMPTS = 3;

/** True for a call whose connection closed before its answer: nothing of it reached the caller. */
export function isDroppedConnection(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause;
  return error instanceof TypeError && (cause?.code === 'UND_ERR_SOCKET' || cause?.code === 'ECONNRESET');
}

async function again<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (attempt >= DROPPED_CONNECTION_ATTEMPTS || !isDroppedConnection(error)) throw error;
    }
  }
}

/** The bucket with each call repeated on a dropped connection (see the top of this file). */
export function sturdyBucket(bucket: LocalBucket): LocalBucket {
  return {
    get: (key) => again(() => bucket.get(key)),
    put: (key, value, options) => again(() => bucket.put(key, value, options)),
    list: (options) => again(() => bucket.list(options)),
    delete: (keys) => again(() => bucket.delete(keys)),
  };
}
