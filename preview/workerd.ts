/**
 * `wallet-snapshot serve --runtime workerd`: the Cloudflare Worker (server/worker.ts) run locally
 * in workerd, Cloudflare's own runtime, through Miniflare, with its R2 bucket filled by publish's
 * own code (the archives and index of publish/pack-shard.ts, in the layout of tree/bucket.ts), from
 * a tree folder (`--dir`) or from what publish wrote to object storage (`--from`). When the folder's
 * tree is rebuilt, the new tree is loaded as a new version and the pointer switched once it is
 * complete, as a night's publish does. It lives outside server/ because it runs publish's code.
 *
 * In front of workerd stands a small Node proxy playing Cloudflare's edge where Miniflare's own
 * entry differs from it: a client that sends no Accept-Encoding gets identity bodies (Miniflare's
 * entry sends such a client whatever the Worker encoded, gzip, where Cloudflare and the Node
 * server send plain JSON); a request without Host, or not well-formed HTTP, gets the JSON errors
 * the Node server gives (Miniflare answers the first with 200 and the others with its own text),
 * and so do the requests the Node host refuses before its handler (startEdge).
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Miniflare } from 'miniflare';
import pLimit from 'p-limit';
import { packFolder, POINTER_CACHE_CONTROL, POINTER_KEY, versionPrefix } from '../tree/bucket.ts';
import { ALLOWED_METHODS, JSON_CONTENT_TYPE } from '../tree/http-headers.ts';
import { pointerText, type PackedShard } from '../tree/live-pointer.ts';
import { Progress } from '../core/progress.ts';
import { readCheckedTree } from '../publish/checked-tree.ts';
import { editedSinceBuild } from '../publish/build-records.ts';
import { packShard } from '../publish/pack-shard.ts';
import { sendPackedArchives } from '../publish/packed-tree.ts';
import { isPackedFolder, PACKED_DESCRIPTOR } from '../tree/packed-folder.ts';
import { manifestText, versionIdOf } from '../publish/read-tree.ts';
import { createStorageClient } from '../publish/storage.ts';
import { parseLocation, describe } from '../publish/location.ts';
import { readPointer } from '../publish/live-pointer.ts';
import { readLiveVersion } from '../publish/read-version.ts';
import { META_FILE } from '../tree/layout.ts';
import { answerUnparsedRequests, countAnswer, refuseMissingHost, writeError } from '../server/index.ts';
import { acceptsGzip } from '../server/app.ts';
import { forwardedHost, requestUrl } from '../server/request-url.ts';
import { methodNotAllowedMessage } from '../server/responses.ts';
import { workerdEndsWithThisProcess } from './workerd-lifetime.ts';
import { type LocalBucket, sturdyBucket } from './local-bucket.ts';

export type { LocalBucket } from './local-bucket.ts';

const WORKER_SOURCE = new URL('../server/worker.ts', import.meta.url);
/** The Worker bundled at pack time, in the package (dist/preview/): it has no sources to bundle. */
const PACKED_WORKER = new URL('./worker-bundle.js', import.meta.url);
/**
 * The bundler of the sources (esbuild, a devDependency): never loaded by the package, which has no
 * sources. Named through a constant because knip's production check follows a literal URL.
 */
const FROM_SOURCES = './worker-from-sources.ts';
/** The compatibility date the Worker is written for (also in wrangler.toml). */
export const COMPATIBILITY_DATE = '2025-09-01';
const BINDING = 'TREE';
/** Puts in flight while a tree is loaded into the local bucket. */
const LOAD_CONCURRENCY = 32;
const WATCH_INTERVAL_MS = 1_000;

export interface RunningWorker {
  url: string;
  /** The Worker's local R2 bucket (tests alter, truncate and delete its objects). */
  bucket: LocalBucket;
  /** Resolves once the folder's current tree is served (after a rebuild, too). */
  loaded(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The Worker as one ES module, bundled the way wrangler bundles it for deployment: from its sources
 * in the repository (worker-from-sources.ts, esbuild being a devDependency), as bundled at pack
 * time in the installed package. docs/decisions.md, "Sources or compiled".
 */
async function bundleWorker(entry?: string): Promise<string> {
  if (entry === undefined && !fs.existsSync(WORKER_SOURCE)) return fs.readFileSync(PACKED_WORKER, 'utf8');
  const fromSources = new URL(FROM_SOURCES, import.meta.url).href;
  const { bundleWorkerSources } = (await import(fromSources)) as { bundleWorkerSources(entry: string): Promise<string> };
  return bundleWorkerSources(entry ?? fileURLToPath(WORKER_SOURCE));
}

/**
 * `serve --runtime workerd --from s3://BUCKET[/PREFIX]`: the Worker over what `publish` wrote to
 * object storage. The live version's archives and indexes are copied into the local bucket as
 * stored, then the pointer; a publish or a rollback seen later is copied the same way, the
 * pointer last, so the Worker switches from one whole version to the next.
 */
export async function startWorkerdFromBucket(options: {
  from: string;
  endpoint?: string;
  port: number;
  host: string;
  log?: (line: string) => void;
}): Promise<RunningWorker> {
  const location = parseLocation(options.from);
  const client = await createStorageClient({ endpoint: options.endpoint, maxAttempts: 4, concurrency: LOAD_CONCURRENCY });
  let mirrored: string | null = null;
  const copied = new Set<string>();
  const mirror = async (bucket: LocalBucket) => {
    const live = await readPointer(client, location);
    if (!live) throw new Error(`nothing is published at ${describe(location)} (no live.json)`);
    if (live.version === mirrored) return;
    const started = performance.now();
    let objects = 0;
    const { pointer, objects: stored } = await readLiveVersion(client, location);
    const limit = pLimit(LOAD_CONCURRENCY);
    const puts: Promise<unknown>[] = [];
    for await (const object of stored) {
      if (copied.has(object.key)) continue;
      copied.add(object.key);
      objects++;
      puts.push(limit(() => putPacked(bucket, object.layoutKey, object.body)));
    }
    await Promise.all(puts);
    await putPointer(bucket, pointerText(pointer));
    options.log?.(
      `${new Date().toISOString()} serving version ${pointer.version}${mirrored ? ` (was ${mirrored})` : ''}: ` +
        `copied ${objects} object${objects === 1 ? '' : 's'} in ${((performance.now() - started) / 1000).toFixed(1)}s`,
    );
    mirrored = pointer.version;
  };
  const { miniflare, runtime, bucket } = await startMiniflare();
  let edge: http.Server;
  try {
    await mirror(bucket);
    edge = await startEdge(runtime, options);
  } catch (error) {
    client.destroy();
    await miniflare.dispose();
    throw error;
  }
  let following: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    following = following
      .then(() => mirror(bucket))
      .catch((error: unknown) => {
        process.stderr.write(`wallet-snapshot serve: could not copy ${describe(location)}: ${(error as Error).message}\n`);
      });
  }, WATCH_INTERVAL_MS);
  timer.unref();
  return {
    url: edgeUrl(edge, options.host),
    bucket,
    loaded: () => mirror(bucket),
    close: async () => {
      clearInterval(timer);
      await following.catch(() => {});
      await closeServer(edge);
      client.destroy();
      await miniflare.dispose();
    },
  };
}

/** An archive or an index, put into the local bucket under its key of the layout. */
function putPacked(bucket: Pick<LocalBucket, 'put'>, key: string, body: Uint8Array): Promise<unknown> {
  // A copy in an ArrayBuffer of its own: Miniflare cannot pass a view of Node's pooled buffers.
  return bucket.put(key, new Uint8Array(body), { httpMetadata: { contentType: 'application/octet-stream' } });
}

function putPointer(bucket: LocalBucket, text: string): Promise<unknown> {
  return bucket.put(POINTER_KEY, text, { httpMetadata: { contentType: JSON_CONTENT_TYPE, cacheControl: POINTER_CACHE_CONTROL } });
}

/** Options a measurement gives: another entry module wrapping the Worker, and text bindings. */
export interface WorkerVariant {
  entry?: string;
  bindings?: Record<string, string>;
}

async function startMiniflare(variant: WorkerVariant = {}): Promise<{ miniflare: Miniflare; runtime: URL; bucket: LocalBucket }> {
  workerdEndsWithThisProcess();
  const miniflare = new Miniflare({
    modules: true,
    script: await bundleWorker(variant.entry),
    compatibilityDate: COMPATIBILITY_DATE,
    r2Buckets: [BINDING],
    bindings: variant.bindings ?? {},
    host: '127.0.0.1',
    port: 0,
  });
  const runtime = await miniflare.ready;
  const bucket = sturdyBucket((await miniflare.getR2Bucket(BINDING)) as unknown as LocalBucket);
  return { miniflare, runtime, bucket };
}

function edgeUrl(edge: http.Server, host: string): string {
  const address = edge.address() as { port: number };
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}

function closeServer(server: http.Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

export async function startWorkerd(options: { dir: string; port: number; host: string; variant?: WorkerVariant }): Promise<RunningWorker> {
  const { miniflare, runtime, bucket } = await startMiniflare(options.variant);
  let published: { tree: string; meta: number; version: string } | null = null;
  let loading: Promise<void> = Promise.resolve();
  let closed = false;

  /** Loads the folder's tree as a new version when it differs from the one published. */
  const refresh = async () => {
    const identity = treeIdentity(options.dir);
    if (!identity || (published && published.tree === identity.tree && published.meta === identity.meta)) return;
    const { version, shards } = await loadTree(bucket, identity.tree, options.dir);
    await putPointer(bucket, pointerText({ version, previous: [], publishedAt: new Date().toISOString(), shards }));
    const previous = published;
    published = { ...identity, version };
    // The Worker reads the pointer again within seconds; the previous version goes once none reads it.
    if (previous && previous.version !== version)
      setTimeout(() => void removeVersion(bucket, previous.version).catch(() => {}), 15_000).unref();
  };
  try {
    await refresh();
  } catch (error) {
    await miniflare.dispose();
    throw error;
  }
  let edge: http.Server;
  try {
    edge = await startEdge(runtime, options);
  } catch (error) {
    await miniflare.dispose();
    throw error;
  }
  const timer = setInterval(() => {
    if (closed) return;
    loading = loading.then(refresh).catch((error: unknown) => {
      process.stderr.write(`wallet-snapshot serve: could not load ${options.dir} into the local bucket: ${(error as Error).message}\n`);
    });
  }, WATCH_INTERVAL_MS);
  timer.unref();
  return {
    url: edgeUrl(edge, options.host),
    bucket,
    loaded: async () => {
      await refresh();
    },
    close: async () => {
      closed = true;
      clearInterval(timer);
      await loading.catch(() => {});
      await closeServer(edge);
      await miniflare.dispose();
    },
  };
}

/**
 * The methods workerd parses (kj's list): any other (LINK, UNLINK, M-SEARCH...) workerd answers
 * with a plain-text 501, so the edge answers it with the handler's own 405.
 */
const WORKERD_METHODS = new Set([
  'ACL',
  'CHECKOUT',
  'COPY',
  'DELETE',
  'GET',
  'HEAD',
  'LOCK',
  'MERGE',
  'MKACTIVITY',
  'MKCOL',
  'MOVE',
  'NOTIFY',
  'OPTIONS',
  'PATCH',
  'POST',
  'PROPFIND',
  'PROPPATCH',
  'PURGE',
  'PUT',
  'QUERY',
  'REPORT',
  'SEARCH',
  'SUBSCRIBE',
  'TRACE',
  'UNLOCK',
  'UNSUBSCRIBE',
]);

/** Headers about one connection or one body's framing, never forwarded (the edge sends no body). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'upgrade',
  'content-length',
  'expect',
  'trailer',
  'host',
]);

/**
 * The Node proxy in front of workerd (see the top of this file). It refuses what the Node host
 * refuses before its handler (server/request-url.ts, methods workerd cannot parse) with the same
 * JSON errors, and forwards the rest as a request workerd parses as the Node host would: origin
 * form, a Host it can parse, no body (the handler reads none; a body workerd left unread also cost
 * the connection it came on), and an Accept-Encoding reduced to the one choice the handler makes
 * (gzip or identity: workerd answers a plain 415 to one refusing identity, which Node ignores).
 *
 * A GET or HEAD whose connection to workerd fails before any byte of its answer is sent once
 * more on a new connection: a kept-alive connection workerd has closed meanwhile fails that way,
 * and the request is safe to repeat. What still fails is a 502 with the JSON error; an answer cut
 * after its head closes the client's connection, so that it can never pass for a whole answer.
 */
export async function startEdge(runtime: URL, options: { port: number; host: string }): Promise<http.Server> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 128 });
  const edge = http.createServer({ requireHostHeader: false }, (req, res) => {
    countAnswer(req.socket, res);
    // Forwarded, such a request would get the Host of workerd's own address and a 200.
    if (refuseMissingHost(req, res)) return;
    // The body is never forwarded: read and dropped, so that the client's connection can go on.
    req.resume();
    const method = req.method ?? 'GET';
    const target = requestUrl(req.url ?? '', req.headers.host);
    if ('error' in target) return writeError(res, 400, `The request is not well-formed: ${target.error}.`);
    if (!WORKERD_METHODS.has(method)) return writeError(res, 405, methodNotAllowedMessage(method), { Allow: ALLOWED_METHODS.join(', ') });
    const headers: http.OutgoingHttpHeaders = { host: forwardedHost(target.url) };
    for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
    headers['accept-encoding'] = acceptsGzip(req.headers['accept-encoding']) ? 'gzip' : 'identity';
    // A fragment is the client's own business (the Node host's handler ignores it too): never forwarded.
    const path = `${target.url.pathname}${target.url.search}`;
    const retriable = method === 'GET' || method === 'HEAD';
    const forward = (fresh: boolean) => {
      const upstream = http.request(
        { host: runtime.hostname, port: runtime.port, method, path, headers, agent: fresh ? false : agent },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
          answer.pipe(res);
          // Cut mid-answer: the client's connection is closed, never ended as if the answer were whole.
          answer.on('aborted', () => res.destroy());
          answer.on('error', () => res.destroy());
        },
      );
      upstream.on('error', (error: NodeJS.ErrnoException) => {
        if (res.headersSent) return void res.destroy();
        if (res.destroyed) return;
        if (retriable && !fresh) return forward(true);
        writeError(res, 502, `The Worker could not be reached (${error.code ?? error.message}); retry shortly.`, { 'Retry-After': '1' });
      });
      // A client that goes away mid-answer frees the connection to workerd at once: otherwise the
      // answer stays unread, its socket busy, and once the agent's sockets are all held so, every
      // later request waits forever (a load test's last in-flight requests did exactly that).
      res.once('close', () => {
        if (!res.writableFinished) upstream.destroy();
      });
      upstream.end();
    };
    forward(false);
  });
  answerUnparsedRequests(edge);
  await new Promise<void>((resolve, reject) => {
    edge.once('error', reject);
    edge.listen(options.port, options.host, () => resolve());
  });
  return edge;
}

/** The real folder a tree path resolves to and its meta file's (a packed folder's descriptor's) mtime: a rebuild changes one. */
function treeIdentity(dir: string): { tree: string; meta: number } | null {
  try {
    const tree = fs.realpathSync(dir);
    const marker = isPackedFolder(tree) ? path.join(tree, PACKED_DESCRIPTOR) : path.join(tree, ...META_FILE.split('/'));
    return { tree, meta: fs.statSync(marker).mtimeMs };
  } catch {
    return null;
  }
}

/**
 * The tree into the local bucket as `publish` stores it, by publish's own code: listed and checked
 * against the build's records (readCheckedTree), then packed into archives and an index, each
 * file's bytes checked as it is read (pack-shard.ts), as shard 1 of 1 whatever the tree (a sharded build's union, too). Returns the
 * version id publish would give it and its pack, for the pointer.
 */
export async function loadTree(
  bucket: Pick<LocalBucket, 'put'>,
  _dir: string,
  shownDir: string,
): Promise<{ version: string; shards: PackedShard[] }> {
  const progress = new Progress('quiet');
  const tree = await readCheckedTree({ dir: shownDir, progress }, 'serve');
  const version = versionIdOf(tree.lastClosedDay, manifestText(tree.files));
  const folder = `${versionPrefix(version)}${packFolder({ index: 1, count: 1 })}`;
  const packing = {
    progress,
    checkInterrupted: () => {},
    edited: (treePath: string, sentBefore: number) => editedSinceBuild(shownDir, treePath, 'serve', sentBefore),
  };
  const target = {
    stored: new Map(),
    put: async (name: string, bytes: Uint8Array) => {
      await putPacked(bucket, `${folder}${name}`, bytes);
    },
  };
  try {
    // A packed folder's archives go in as build --packed wrote them (whichever shard, served as the whole version).
    const packed = tree.packed
      ? await sendPackedArchives(tree.packed, target, packing)
      : await packShard({ ...packing, dir: tree.dir }, tree.files, target);
    return { version, shards: [packed.shape] };
  } finally {
    tree.packed?.close();
  }
}

async function removeVersion(bucket: LocalBucket, version: string): Promise<void> {
  let cursor: string | undefined;
  do {
    const listed = await bucket.list({ prefix: versionPrefix(version), cursor });
    if (listed.objects.length > 0) await bucket.delete(listed.objects.map((object) => object.key));
    cursor = listed.truncated ? listed.cursor : undefined;
  } while (cursor);
}
