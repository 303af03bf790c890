/**
 * The Node host of the request handler (app.ts): `wallet-snapshot serve`, fit to run as the origin
 * behind a CDN. Node's own HTTP server parses requests; @hono/node-server turns them into web
 * `Request`s for the handler. This file only adds what happens before the handler can see a
 * request (a malformed request line, headers too large, a missing Host, CONNECT): those get the
 * same JSON error and headers as every other error.
 */
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { getRequestListener } from '@hono/node-server';
import { createApp } from './app.ts';
import type { EndpointTable } from '../schemas/endpoints.ts';
import { LocalTreeStore } from './local-store.ts';
import { errorBody, errorHeaders, methodNotAllowedMessage } from './responses.ts';
import { ALLOWED_METHODS } from '../tree/http-headers.ts';

export interface ServerOptions {
  dir: string;
  /** The endpoints to answer (schemas/endpoints.ts): the product's by default. */
  endpoints?: EndpointTable;
}

/** Node's limit on the request line and headers together (its default, stated here to be said in errors). */
const MAX_HEADER_BYTES = 16 * 1024;

export function createPreviewServer(options: ServerOptions): http.Server {
  const app = createApp(new LocalTreeStore(options.dir), { compression: 'handler', endpoints: options.endpoints });
  const listener = getRequestListener(app.fetch, {
    // A request the adapter cannot turn into a URL (no Host, a malformed Host or path).
    errorHandler: (error) =>
      errorResponseOf(400, `The request is not well-formed: ${error instanceof Error ? error.message : String(error)}.`),
  });
  // The Host check is the handler's, so that its answer is the JSON error, not Node's bare 400.
  const server = http.createServer({ requireHostHeader: false, maxHeaderSize: MAX_HEADER_BYTES }, (req, res) => {
    if (refuseMissingHost(req, res)) return;
    holdBackPipelining(req.socket, res);
    void listener(req, res);
  });
  answerUnparsedRequests(server);
  return server;
}

/**
 * Requests Node's HTTP parser refuses, and CONNECT, never reach a request handler: they get the
 * JSON error and headers of every other error, and the connection closes.
 */
export function answerUnparsedRequests(server: http.Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    const [status, message] =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, `The request line and headers are larger than the server accepts (${MAX_HEADER_BYTES / 1024} KB).`]
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'The request did not arrive in time.']
          : [400, 'The request is not well-formed HTTP.'];
    // The answers to the requests before it, still being made, go first, in order.
    whenAnswered(socket, () => (socket.writable ? writeRawError(socket, status, message) : socket.destroy()));
  });
  // CONNECT never reaches a request handler in Node: answer it like any other method not allowed.
  server.on('connect', (req: http.IncomingMessage, socket: Duplex) => {
    writeRawError(socket, 405, methodNotAllowedMessage(req.method ?? 'CONNECT'), { Allow: ALLOWED_METHODS.join(', ') });
  });
  // An Expect other than 100-continue: Node would answer a bare 417 without body or headers.
  server.on('checkExpectation', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const expectation = String(req.headers.expect ?? '').slice(0, 40);
    writeError(res, 417, `The server meets no expectation but 100-continue, not "${expectation}"; send the request without Expect.`);
  });
}

/** Answers in progress on one connection beyond which it is read no further. */
const MAX_ANSWERS_IN_FLIGHT = 16;
/** Bytes waiting for a client to read beyond which its connection is read no further. */
const MAX_UNREAD_BYTES = 1 << 20;
/** Per connection: the answers in progress, and what waits for them all to be sent. */
const inFlight = new WeakMap<Duplex, { count: number; then: (() => void)[] }>();

/**
 * Counts an answer in progress on its connection until it is sent (or the connection closes):
 * an error about a later pipelined request Node could not parse waits for it (whenAnswered).
 * Returns the number now in progress.
 */
export function countAnswer(socket: Duplex, res: http.ServerResponse): number {
  const state = inFlight.get(socket) ?? { count: 0, then: [] };
  inFlight.set(socket, state);
  state.count++;
  res.once('close', () => {
    state.count--;
    if (state.count === 0) for (const action of state.then.splice(0)) action();
  });
  return state.count;
}

/** Runs `action` once no answer is in progress on the connection. */
function whenAnswered(socket: Duplex, action: () => void): void {
  const state = inFlight.get(socket);
  if (!state || state.count === 0) action();
  else state.then.push(action);
}

/**
 * A client that pipelines requests without reading the answers would otherwise have every request
 * parsed and answered into memory: Node pauses such a connection only when answers are already
 * waiting at the moment a request is parsed, and ours are made asynchronously. So the connection
 * is paused the way Node pauses it (its `_paused` flag, which also stops its parser after the
 * current chunk) while 16 answers are unfinished or 1 MB waits to be read; Node reads on once the
 * answers drain.
 */
function holdBackPipelining(socket: Duplex, res: http.ServerResponse): void {
  const count = countAnswer(socket, res);
  const flagged = socket as Duplex & { _paused?: boolean };
  if (!flagged._paused && (count >= MAX_ANSWERS_IN_FLIGHT || socket.writableLength > MAX_UNREAD_BYTES)) {
    flagged._paused = true;
    socket.pause();
  }
}

/**
 * HTTP/1.1 requires Host (HTTP/1.0 does not: it is taken as `localhost`): without one the request
 * gets the JSON 400 of docs/hosting.md#what-every-host-answers, on the Node server and in front of workerd alike. True when answered.
 */
export function refuseMissingHost(req: http.IncomingMessage, res: http.ServerResponse): boolean {
  if (req.headers.host !== undefined) return false;
  if (req.httpVersion === '1.0') {
    req.headers.host = 'localhost';
    return false;
  }
  writeError(res, 400, 'The request is not well-formed: Missing host header.');
  return true;
}

/** The JSON error of every host, through Node's response (the connection stays open for the next request). */
export function writeError(res: http.ServerResponse, status: number, message: string, extraHeaders: Record<string, string> = {}): void {
  const body = errorBody(message);
  res.writeHead(status, { ...errorHeaders(body), ...extraHeaders, 'Content-Length': String(Buffer.byteLength(body)) });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

function errorResponseOf(status: number, message: string): Response {
  const body = errorBody(message);
  return new Response(body, { status, headers: errorHeaders(body) });
}

/** An error written straight to a socket the HTTP server has given up on; the connection closes. */
function writeRawError(socket: Duplex, status: number, message: string, extraHeaders: Record<string, string> = {}): void {
  const body = errorBody(message);
  const headers = { ...errorHeaders(body), ...extraHeaders, 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close' };
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n${head}\r\n${body}`);
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
