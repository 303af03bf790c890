/**
 * The Cloudflare Worker (module syntax): the request handler of app.ts over the R2 bucket bound as
 * `TREE` (wrangler.toml), in the layout `wallet-snapshot publish` writes. `TREE_PREFIX` is the
 * prefix given to `publish --to s3://BUCKET/PREFIX` (empty for the bucket's root).
 */
import type { Hono } from 'hono';
import type { EndpointTable } from '../schemas/endpoints.ts';
import { createApp } from './app.ts';
import { R2TreeStore, type CacheLike, type R2BucketLike } from './r2-store.ts';

export interface Env {
  TREE: R2BucketLike;
  TREE_PREFIX?: string;
  /** `off`: read every file from R2 (to measure what the cache saves). */
  TREE_CACHE?: string;
  /** `off`: hold no index in the isolate, read a window of it for each file (to measure what holding saves). */
  TREE_HELD_INDEX?: string;
}

/** The colo's cache of tree files (r2-store.ts), where the runtime has the Cache API. */
declare const caches: { open(name: string): Promise<CacheLike> } | undefined;
const CACHE_NAME = 'wallet-snapshot-tree';

/** The Worker answering `endpoints` (the endpoint table: the product's by default; a test's Worker gives a copy with one more). */
export function workerFor(endpoints?: EndpointTable) {
  /** One app per isolate and binding: the store keeps the pointer between requests. */
  let current: { bucket: R2BucketLike; prefix: string; app: Hono } | null = null;
  return {
    async fetch(request: Request, env: Env, context: unknown): Promise<Response> {
      const prefix = normalisedPrefix(env.TREE_PREFIX);
      if (!current || current.bucket !== env.TREE || current.prefix !== prefix) {
        const cache = env.TREE_CACHE === 'off' || typeof caches === 'undefined' ? null : await caches.open(CACHE_NAME);
        const store = new R2TreeStore(env.TREE, prefix, cache, env.TREE_HELD_INDEX === 'off' ? 0 : undefined);
        current = { bucket: env.TREE, prefix, app: createApp(store, { compression: 'runtime', endpoints }) };
      }
      return current.app.fetch(request, env, context as never);
    },
  };
}

export default workerFor();

function normalisedPrefix(prefix: string | undefined): string {
  const trimmed = (prefix ?? '').replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? '' : `${trimmed}/`;
}
