/**
 * The one request handler of the `/v1` interface, for every host: the Node server and the
 * Cloudflare Worker wrap this same Hono app, each over its own store (store.ts). Only web
 * standards are used here (Request, Response, Headers, URL, CompressionStream, crypto.subtle), so
 * it runs unchanged on Node and in workerd.
 *
 * Each answer is made whole where it is decided (its headers, its 304), so that middleware never
 * rebuilds a finished response on the common path: on Node that halved the requests a second
 * (docs/decisions.md). Middleware, outermost first: CORS (answers OPTIONS) -> the method and URL
 * checks -> compression, for clients that accept it -> the routes.
 */
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { compress } from 'hono/compress';
import { getMimeType } from 'hono/utils/mime';
import fresh from 'fresh';
import { isRealCalendarDate } from '../schemas/common.ts';
import {
  ENDPOINTS,
  type Endpoint,
  type EndpointTable,
  fileTemplate,
  filled,
  noHistoryFile,
  noSuchEndpointMessage,
  PARAMETERS,
  type ParameterName,
  parametersOf,
  type RangeFilter,
  say,
} from '../schemas/endpoints.ts';
import { EXPLORER_DIR, EXPLORER_PAGE, OPENAPI_FILE } from '../tree/layout.ts';
import { ALLOWED_METHODS, CORS_MAX_AGE_SECONDS, DOCUMENT_CACHE_CONTROL, JSON_CONTENT_TYPE } from '../tree/http-headers.ts';
import { gunzip } from './gunzip.ts';
import { errorResponse, methodNotAllowedMessage, weakEtag } from './responses.ts';
import { StoreUnavailableError, type StoredFile, type TreeStore } from './store.ts';

/** Longest request target (path and query) accepted, in characters. */
const MAX_URL_LENGTH = 4096;

export interface HostOptions {
  /**
   * Who compresses responses for clients that accept gzip: the handler itself (Node), or the
   * runtime (workerd compresses a body sent with `Content-Encoding: gzip`, and would compress an
   * already compressed one again).
   */
  compression: 'handler' | 'runtime';
  /** The endpoints to answer (schemas/endpoints.ts): the product's by default; a test gives a copy with one more. */
  endpoints?: EndpointTable;
}

export function createApp(store: TreeStore, host: HostOptions = { compression: 'handler' }): Hono {
  const app = new Hono({ strict: true });
  const endpoints = host.endpoints ?? ENDPOINTS;
  const noSuchEndpoint = noSuchEndpointMessage(endpoints);
  const notFound = () => errorResponse(404, noSuchEndpoint);

  const preflight = cors({ origin: '*', allowMethods: [...ALLOWED_METHODS], maxAge: CORS_MAX_AGE_SECONDS });
  app.use(async (c, next) => {
    if (c.req.method !== 'OPTIONS') return next();
    const answer = await preflight(c, next);
    return answer ? completedPreflight(c, answer) : answer;
  });
  app.use(async (c, next) => {
    if (!ALLOWED_METHODS.includes(c.req.method as (typeof ALLOWED_METHODS)[number])) {
      return errorResponse(405, methodNotAllowedMessage(c.req.method), { Allow: ALLOWED_METHODS.join(', ') });
    }
    // Path and query: a fragment (which a client should not send) is not part of what is asked.
    const url = new URL(c.req.url);
    const target = url.pathname.length + url.search.length;
    if (target > MAX_URL_LENGTH) return errorResponse(414, `The request URL is longer than ${MAX_URL_LENGTH} characters.`);
    await next();
  });
  const compression = host.compression === 'handler' ? compress({ threshold: 0 }) : runtimeCompression;
  app.use((c, next) => (acceptsGzip(c.req.header('Accept-Encoding')) ? compression(c, next) : next()));

  for (const [name, endpoint] of Object.entries(endpoints)) routeEndpoint(app, store, name, endpoint, notFound);
  app.get(`/${OPENAPI_FILE}`, async (c) => {
    const file = await (await store.open()).read(OPENAPI_FILE);
    return file ? storedResponse(c, file, JSON_CONTENT_TYPE) : notFound();
  });

  // The explorer page and its assets (their own content types, not JSON).
  const staticFile = async (c: Context, path: string) => {
    const file = await (await store.open()).read(path);
    if (!file) return notFound();
    return storedResponse(c, file, getMimeType(path) ?? 'application/octet-stream');
  };
  app.get('/', (c) => staticFile(c, EXPLORER_PAGE));
  app.get(`/${EXPLORER_PAGE}`, (c) => staticFile(c, EXPLORER_PAGE));
  app.get(`/${EXPLORER_DIR}/:name{[A-Za-z0-9][A-Za-z0-9_-]*(\\.[A-Za-z0-9_-]+)*}`, (c) =>
    staticFile(c, `${EXPLORER_DIR}/${c.req.param('name')}`),
  );

  app.notFound(() => notFound());
  app.onError((error) => {
    if (error instanceof StoreUnavailableError) {
      return errorResponse(503, `The server cannot read the snapshot right now (${error.message}); retry shortly.`, { 'Retry-After': '1' });
    }
    console.error(`wallet-snapshot server: ${error instanceof Error ? error.stack : String(error)}`);
    return errorResponse(500, 'The server failed to answer this request.');
  });
  return app;
}

/**
 * An endpoint's routes, from its row of the table: each path parameter checked by its kind (a 400
 * naming the segment), then the file its normal segments name, cut to `from`/`to` when the
 * endpoint takes them. A missing file is the endpoint's no-history answer when it has one (a 503
 * when that is missing too: the tree is incomplete), else the parameter's 400 for a value that
 * names nothing (an unknown season), else a 404. A path ending in a parameter of a kind that says
 * so answers its 400 when the segment is left out (`/v1/leaderboard`).
 */
function routeEndpoint(app: Hono, store: TreeStore, name: string, endpoint: Endpoint, notFound: () => Response): void {
  const kinds = parametersOf(endpoint.path);
  const last = /\{(\w+)\}$/.exec(endpoint.path)?.[1] as ParameterName | undefined;
  const leftOut = last === undefined ? null : PARAMETERS[last].missing;
  if (leftOut !== null) {
    const parent = endpoint.path.slice(0, endpoint.path.lastIndexOf('/'));
    const required = () => badRequest(say(leftOut, `${parent}/${PARAMETERS[last!].example}`));
    app.get(parent, required);
    app.get(`${parent}/`, required);
  }
  const file = fileTemplate(endpoint);
  const noHistory = endpoint.noHistory === null ? null : noHistoryFile(name);
  const unknownKind = kinds.find((kind) => PARAMETERS[kind].unknown !== null);
  app.get(endpoint.path.replace(/\{(\w+)\}/g, ':$1'), async (c) => {
    const segments: Partial<Record<ParameterName, string>> = {};
    for (const kind of kinds) {
      const segment = c.req.param(kind) ?? '';
      if (!PARAMETERS[kind].pattern.test(segment)) return badRequest(say(PARAMETERS[kind].invalid, truncate(segment)));
      segments[kind] = PARAMETERS[kind].normal(segment);
    }
    const missing: Missing = () => {
      if (noHistory !== null) return snapshotMissing();
      const unknown = unknownKind === undefined ? null : PARAMETERS[unknownKind].unknown;
      return unknown ? badRequest(say(unknown.sentence, c.req.param(unknownKind!) ?? '')) : notFound();
    };
    if (endpoint.range) return documentInRange(c, store, filled(file, segments), noHistory, endpoint.range.filter, missing);
    return documentOrFallback(c, store, filled(file, segments), noHistory, missing);
  });
}

/**
 * Compression by the runtime (workerd): the responses Hono's compress middleware would compress
 * are sent with `Content-Encoding: gzip`, which workerd applies as it sends them.
 */
const runtimeCompression: MiddlewareHandler = async (c, next) => {
  await next();
  const headers = c.res.headers;
  if (c.req.method === 'HEAD' || !c.res.body || headers.has('Content-Encoding') || !acceptsGzip(c.req.header('Accept-Encoding'))) return;
  headers.set('Vary', 'Accept-Encoding');
  headers.set('Content-Encoding', 'gzip');
  headers.delete('Content-Length');
};

/**
 * Hono's cors middleware answers the preflight; the lists are written as the interface documents
 * them (it joins without spaces), the requested headers echoed as sent, and the headers every
 * answer carries added.
 */
function completedPreflight(c: Context, answer: Response): Response {
  // Hono copies the context's headers onto the answer a middleware returns: the final values go
  // there too.
  const headers = c.res.headers;
  for (const [name, value] of answer.headers) headers.set(name, value);
  headers.set('Access-Control-Allow-Methods', ALLOWED_METHODS.join(', '));
  const requested = c.req.header('Access-Control-Request-Headers');
  if (requested !== undefined) headers.set('Access-Control-Allow-Headers', requested);
  headers.set('Content-Type', JSON_CONTENT_TYPE);
  // A preflight's answer is the same for every path: the browser may keep it for a day.
  headers.set('Cache-Control', `public, max-age=${CORS_MAX_AGE_SECONDS}`);
  headers.set('ETag', weakEtag('options'));
  return new Response(null, { status: 204, headers });
}

/**
 * RFC 9110 conditional GET and HEAD: If-None-Match (a list, weak comparison, `*`) and, only
 * without it, If-Modified-Since, decided by `fresh` (jshttp). A 304 keeps the validators,
 * caching and CORS headers the 200 would have had.
 *
 * The request's Cache-Control is not given to `fresh`: it treats `no-cache` as "not fresh", right
 * for a cache in front of an origin, but an origin evaluates the precondition whatever the request
 * says (RFC 9110, 13.2), and `fetch` adds `no-cache` to every request that carries If-None-Match.
 */
function notModified(c: Context, headers: Record<string, string>): Response | null {
  const ifNoneMatch = c.req.header('If-None-Match');
  const ifModifiedSince = c.req.header('If-Modified-Since');
  if (ifNoneMatch === undefined && ifModifiedSince === undefined) return null;
  const request = { 'if-none-match': ifNoneMatch, 'if-modified-since': ifModifiedSince };
  if (!fresh(request, { etag: headers.ETag, 'last-modified': headers['Last-Modified'] })) return null;
  const { 'Content-Length': _length, 'Content-Encoding': _encoding, ...kept } = headers;
  return new Response(null, { status: 304, headers: kept });
}

/** The answer when neither the document nor its no-history answer is in the tree. */
type Missing = () => Response;

/** The document at `path`, else the one at `fallback` (the no-history answers). */
async function documentOrFallback(
  c: Context,
  store: TreeStore,
  path: string,
  fallback: string | null,
  missing: Missing,
): Promise<Response> {
  const tree = await store.open();
  const file = (await tree.read(path)) ?? (fallback === null ? null : await tree.read(fallback));
  if (!file) return missing();
  return storedResponse(c, file, JSON_CONTENT_TYPE);
}

/**
 * A document whose day rows `from`/`to` keep (the daily portfolio, the points history): without
 * them the file as it is; with them the rows in range, cut out of the file's bytes, under an ETag
 * of the file and the range.
 */
async function documentInRange(
  c: Context,
  store: TreeStore,
  path: string,
  fallback: string | null,
  filter: RangeFilter,
  missing: Missing,
): Promise<Response> {
  const range = dateRange(new URL(c.req.url).search.slice(1));
  if ('error' in range) return badRequest(range.error);
  if (range.from === null && range.to === null) return documentOrFallback(c, store, path, fallback, missing);
  const tree = await store.open();
  const file = (await tree.read(path)) ?? (fallback === null ? null : await tree.read(fallback));
  if (!file) return missing();
  const options = {
    etag: weakEtag(`${file.digest.slice(0, 32)}-${range.from ?? ''}-${range.to ?? ''}`),
    modified: file.modified,
    contentType: JSON_CONTENT_TYPE,
  };
  return notModified(c, documentHeaders(options)) ?? documentResponse(filter(await uncompressed(file), range.from, range.to), options);
}

/**
 * A stored file as it is: a compressed one goes out compressed to a client that accepts gzip and
 * is decompressed for one that does not, and for HEAD, whose headers describe the identity body
 * on every host (as the compression middleware leaves HEAD alone).
 */
async function storedResponse(c: Context, file: StoredFile, contentType: string): Promise<Response> {
  const options = { etag: weakEtag(file.digest.slice(0, 32)), modified: file.modified, contentType };
  const unchanged = notModified(c, documentHeaders(options));
  if (unchanged) return unchanged;
  if (file.encoding === 'gzip' && c.req.method !== 'HEAD' && acceptsGzip(c.req.header('Accept-Encoding'))) {
    const response = documentResponse(file.bytes, options, { 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' });
    return response;
  }
  return documentResponse(await uncompressed(file), options);
}

interface DocumentOptions {
  etag: string;
  modified: number;
  contentType: string;
}

/** The headers of a document's 200 (and, less its length and encoding, of its 304). */
function documentHeaders(options: DocumentOptions): Record<string, string> {
  return {
    'Content-Type': options.contentType,
    'Access-Control-Allow-Origin': '*',
    'Cache-Control': DOCUMENT_CACHE_CONTROL,
    ETag: options.etag,
    'Last-Modified': new Date(options.modified).toUTCString(),
  };
}

function documentResponse(body: Uint8Array<ArrayBuffer>, options: DocumentOptions, extra: Record<string, string> = {}): Response {
  return new Response(body, {
    status: 200,
    // Workers only: a body that is already compressed is sent as it is (other runtimes ignore this).
    ...(extra['Content-Encoding'] ? { encodeBody: 'manual' } : {}),
    headers: { ...documentHeaders(options), ...extra, 'Content-Length': String(body.length) },
  });
}

async function uncompressed(file: StoredFile): Promise<Uint8Array<ArrayBuffer>> {
  return file.encoding === 'gzip' ? (file.uncompressed ?? gunzip(file.bytes)) : file.bytes;
}

/** Whether Accept-Encoding admits gzip (named, or `*`, with a non-zero q). */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  let wildcard = false;
  for (const part of header.split(',')) {
    const [name = '', ...parameters] = part.trim().toLowerCase().split(';');
    const q = parameters.map((parameter) => /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(parameter)).find(Boolean);
    const accepted = !q || Number(q[1]) > 0;
    if (name.trim() === 'gzip') return accepted;
    if (name.trim() === '*') wildcard = accepted;
  }
  return wildcard;
}

/** `from` and `to`: each at most once, `YYYY-MM-DD`, a real date, and from <= to. */
function dateRange(query: string): { from: string | null; to: string | null } | { error: string } {
  const params = new URLSearchParams(query);
  const bounds: Record<'from' | 'to', string | null> = { from: null, to: null };
  for (const name of ['from', 'to'] as const) {
    const values = params.getAll(name);
    if (values.length > 1) return { error: `The query parameter "${name}" is given more than once.` };
    const value = values[0];
    if (value === undefined) continue;
    if (!isRealCalendarDate(value))
      return { error: `The query parameter "${name}" must be a real date as YYYY-MM-DD, not "${truncate(value)}".` };
    bounds[name] = value;
  }
  if (bounds.from !== null && bounds.to !== null && bounds.from > bounds.to) {
    return { error: `The range is empty: "from" (${bounds.from}) is later than "to" (${bounds.to}).` };
  }
  return bounds;
}

const badRequest = (message: string) => errorResponse(400, message);
/** A tree without its shared files (being replaced by hand, or not a snapshot tree). */
const snapshotMissing = () =>
  errorResponse(503, 'The snapshot tree is incomplete or being replaced; retry shortly.', { 'Retry-After': '1' });

function truncate(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
