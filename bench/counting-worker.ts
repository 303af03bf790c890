/**
 * The Worker with its R2 binding wrapped to count reads, for bench/worker-cache.ts: `/__r2-reads`
 * answers how many `get`s the Worker has made so far. Not deployed anywhere.
 */
import worker, { type Env } from '../server/worker.ts';
import type { R2BucketLike } from '../server/r2-store.ts';

let reads = 0;
let counted: { bucket: R2BucketLike; wrapper: R2BucketLike } | null = null;

export default {
  fetch(request: Request, env: Env, context: unknown): Promise<Response> | Response {
    if (new URL(request.url).pathname === '/__r2-reads') return new Response(String(reads));
    // One wrapper per binding: the Worker keeps its app (and pointer) per bucket object.
    if (counted?.bucket !== env.TREE) {
      const bucket = env.TREE;
      counted = { bucket, wrapper: { get: (key, options) => (reads++, bucket.get(key, options)) } };
    }
    return worker.fetch(request, { ...env, TREE: counted.wrapper }, context);
  },
};
