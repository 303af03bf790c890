/**
 * The preview server (SPEC section 5): serves a snapshot tree exactly as a CDN would, plus what a
 * static file cannot do (from/to filtering, 400s, no-history fallbacks). It never opens DuckDB.
 *
 * Order of work per request: common headers -> compression -> method check -> route (validate,
 * pick the file or fallback, or answer an error / a daily document from the document cache,
 * whole or filtered) -> sirv, last, which sends the other files with their validators. sirv runs
 * in "dev" mode, which looks files up per request, and the cache checks each file's identity on
 * every use: a tree rebuilt (swapped) under the running server is served at once.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import compression from 'compression';
import sirv from 'sirv';
import { route } from './routes.ts';
import { DocumentCache } from './document-cache.ts';
import { filterDaily, indexDailyRows } from './filter-daily.ts';
import { CORS_HEADERS, DOCUMENT_CACHE_CONTROL, ERROR_CACHE_CONTROL, JSON_CONTENT_TYPE } from '../tree/http-headers.ts';
import { resolveInTree } from '../tree/layout.ts';

type Request = http.IncomingMessage;
type Response = http.ServerResponse;

export interface ServerOptions {
  dir: string;
}

export function createPreviewServer(options: ServerOptions): http.Server {
  const dir = path.resolve(options.dir);
  const compress = compression({ threshold: 0 });
  const documents = new DocumentCache();
  const files = sirv(dir, {
    dev: true,
    etag: true,
    dotfiles: false,
    extensions: [],
    onNoMatch: (_req: Request, res: Response) => sendError(res, 404, 'No such document in the snapshot.'),
  });

  const handle = async (req: Request, res: Response) => {
    res.setHeader('Access-Control-Allow-Origin', CORS_HEADERS['Access-Control-Allow-Origin']);
    res.setHeader('Content-Type', JSON_CONTENT_TYPE);
    // The compression wrapper costs something on every response: only when it can pay off.
    if (/\b(gzip|br)\b/.test(req.headers['accept-encoding'] ?? '')) {
      await new Promise<void>((resolve) => compress(req as never, res as never, () => resolve()));
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return sendError(res, 405, `The method ${req.method} is not allowed; use GET or HEAD.`);
    }
    const target = route(req.url ?? '/');
    if (target.kind === 'error') return sendError(res, target.status, target.message);
    if (target.kind === 'daily') {
      // Daily documents, the largest and most asked for, are answered from memory, whole or cut.
      const document = (await documents.read(resolveInTree(dir, target.file))) ?? (await documents.read(resolveInTree(dir, target.fallback)));
      if (!document) return sendError(res, 503, 'The snapshot is being replaced; retry.');
      const { from, to } = target;
      if (from === null && to === null) return sendDocument(req, res, `W/"${document.version}"`, () => [document.bytes]);
      // Derived from the file version and the range: as good a validator as a hash of the body.
      const etag = `W/"${document.version}-${from ?? ''}-${to ?? ''}"`;
      return sendDocument(req, res, etag, () => filterDaily(document.bytes, from, to, (document.dailyRows ??= indexDailyRows(document.bytes))));
    }
    if (target.kind === 'season' && !fs.existsSync(resolveInTree(dir, target.file))) {
      return sendError(res, 400, `The season "${target.season}" is not a known season.`);
    }
    let file = target.file;
    if (!fs.existsSync(resolveInTree(dir, file)) && 'fallback' in target && target.fallback) file = target.fallback;
    res.setHeader('Cache-Control', DOCUMENT_CACHE_CONTROL);
    if (target.kind === 'file' && target.contentType) res.setHeader('Content-Type', target.contentType);
    req.url = `/${file}`;
    files(req, res, () => sendError(res, 404, 'No such document in the snapshot.'));
  };

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      const code = (error as NodeJS.ErrnoException).code;
      // A tree swapped between the existence check and the read: the client may simply retry.
      if (code === 'ENOENT') return sendError(res, 503, 'The snapshot is being replaced; retry.');
      process.stderr.write(`preview server: ${(error as Error).stack ?? String(error)}\n`);
      if (!res.headersSent) sendError(res, 500, 'The server failed to answer this request.');
      else res.destroy();
    });
  });
  // Requests that Node's HTTP parser refuses never reach the handler (a request line or headers
  // over its 16 KB limit, bytes that are not HTTP): they get the same JSON error and headers as
  // any other, not Node's bare status line.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    const [status, message] = error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'The request line and headers are larger than the server accepts (16 KB).']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'The request did not arrive in time.']
        : [400, 'The request is not well-formed HTTP.'];
    const { body, etag } = errorBody(message);
    const headers = {
      'Content-Type': JSON_CONTENT_TYPE,
      ...CORS_HEADERS,
      'Cache-Control': ERROR_CACHE_CONTROL,
      ETag: etag,
      'Content-Length': Buffer.byteLength(body),
      Connection: 'close',
    };
    socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n${Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n${body}`);
  });
  return server;
}

/** A daily document from the cache, whole or filtered; the body is made only when it is sent. */
function sendDocument(req: Request, res: Response, etag: string, body: () => Buffer[]): void {
  res.setHeader('ETag', etag);
  res.setHeader('Cache-Control', DOCUMENT_CACHE_CONTROL);
  if (req.headers['if-none-match'] === etag) {
    res.statusCode = 304;
    res.end();
    return;
  }
  const parts = body();
  res.statusCode = 200;
  res.setHeader('Content-Length', parts.reduce((length, part) => length + part.length, 0));
  for (const part of parts.slice(0, -1)) res.write(part);
  res.end(parts[parts.length - 1]);
}

function sendError(res: Response, status: number, message: string): void {
  const { body, etag } = errorBody(message);
  res.statusCode = status;
  res.setHeader('Content-Type', JSON_CONTENT_TYPE);
  res.setHeader('Cache-Control', ERROR_CACHE_CONTROL);
  res.setHeader('ETag', etag);
  res.end(body);
}

function errorBody(message: string): { body: string; etag: string } {
  const body = JSON.stringify({ error: message });
  return { body, etag: `"${crypto.createHash('sha1').update(body).digest('base64url')}"` };
}

export interface RunningServer {
  server: http.Server;
  url: string;
  close(): Promise<void>;
}

export async function startPreviewServer(options: ServerOptions & { port: number; host: string }): Promise<RunningServer> {
  const server = createPreviewServer(options);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as { port: number };
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    server,
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
