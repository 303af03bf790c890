/**
 * The Cloudflare Worker (module syntax): the request handler of app.ts over the R2 bucket bound as
 * `TREE` (wrangler.toml), in the layout `wallet-snapshot publish` writes. `TREE_PREFIX` is the
 * prefix given to `publish --to s3://BUCKET/PREFIX` (empty for the bucket's root).
 */
import type { Hono } from 'hono';
import { createApp } from './app.ts';
import { R2TreeStore, type R2BucketLike } from './r2-store.ts';

export interface Env {
  TREE: R2BucketLike;
  TREE_PREFIX?: string;
}

/** One app per isolate and binding: the store keeps the pointer between requests. */
let current: { bucket: R2BucketLike; prefix: string; app: Hono } | null = null;

export default {
  fetch(request: Request, env: Env, context: unknown): Response | Promise<Response> {
    const prefix = normalisedPrefix(env.TREE_PREFIX);
    if (!current || current.bucket !== env.TREE || current.prefix !== prefix) {
      current = { bucket: env.TREE, prefix, app: createApp(new R2TreeStore(env.TREE, prefix), { compression: 'runtime' }) };
    }
    return current.app.fetch(request, env, context as never);
  },
};

function normalisedPrefix(prefix: string | undefined): string {
  const trimmed = (prefix ?? '').replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? '' : `${trimmed}/`;
}
