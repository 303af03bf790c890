/**
 * Hostile HTTP requests, generated with fast-check and sent as raw bytes over a socket (a client
 * library would refuse or repair most of them), and the rules every answer of every host keeps:
 * no 5xx, nothing from outside the tree, no stack or path of this machine, the interface's
 * headers on every answer and the JSON error body on every error. Used by the property suites of
 * the Node server (test/http-properties.test.ts) and of the Worker (test/slow/http-properties-workerd.test.ts).
 */
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import zlib from 'node:zlib';
import fc from 'fast-check';
import fs from 'node:fs';
import path from 'node:path';
import { A, balance, build, unix } from './fixtures.ts';

/** What a file beside the tree holds: no answer may ever carry it. */
export const CANARY = 'CANARY-f3a9c1-outside-the-tree';
export const CANARY_FILE = 'canary.json';

export interface HostileRequest {
  /** The bytes sent, one or more requests pipelined. */
  bytes: Buffer;
  /** The method of each request in `bytes`, to know which answers have no body (HEAD). */
  methods: string[];
  /** The request as text, for a failure's message. */
  label: string;
}

const KNOWN_SEGMENTS = [
  'v1',
  'address',
  A,
  A.toUpperCase(),
  'portfolio',
  'daily',
  'points',
  'history',
  'leaderboard',
  's1',
  's2',
  's0',
  'seasons',
  'openapi.json',
  'explorer',
  'index.html',
  '',
];
const TRAVERSAL_SEGMENTS = [
  '..',
  '.',
  '%2e%2e',
  '%2E%2E',
  '.%2e',
  '%2e.',
  '%252e%252e',
  '..%2f..',
  '%2f',
  '%2F',
  '%5c',
  '..\\..',
  '\\',
  '%00',
  'a%00b',
  '%c0%ae%c0%ae',
  '%c0%af',
  '%e0%80%ae',
  '%c1%9c',
  '%',
  '%zz',
  '%E0%A4%A',
  CANARY_FILE,
  '..;',
  ';',
  '~',
  `%2e%2e%2f%2e%2e%2f${CANARY_FILE}`,
  '%uff0e',
  '..%00',
  'é',
  '%C3%A9',
  '*',
  '#',
  '#frag',
  '@',
  ':',
];
const DATES = [
  '2025-11-01',
  '2025-11-20',
  '2025-02-30',
  '2025-13-01',
  '0000-00-00',
  '9999-12-31',
  '2025-1-1',
  '20251101',
  '2025-11-01T00:00',
  '',
  '%32025-11-01',
  '2025-11-0%31',
  'x'.repeat(300),
];

const segment = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...KNOWN_SEGMENTS) },
  { weight: 2, arbitrary: fc.constantFrom(...TRAVERSAL_SEGMENTS) },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }).map(encodeURIComponent) },
);
const pathArbitrary = fc.array(segment, { minLength: 1, maxLength: 7 }).map((segments) => `/${segments.join('/')}`);
const parameter = fc.oneof(
  fc
    .tuple(fc.constantFrom('from', 'to', 'FROM', 'from[]', 'utm_source', 'to%00'), fc.constantFrom(...DATES))
    .map(([name, value]) => `${name}=${value}`),
  fc.constantFrom(
    'from',
    'to=',
    '&',
    '=',
    '%zz',
    'from=2025-11-01&from=2025-11-02',
    `long=${'z'.repeat(5000)}`,
    Array.from({ length: 200 }, (_, i) => `p${i}=${i}`).join('&'),
  ),
);
const query = fc.option(
  fc.array(parameter, { minLength: 1, maxLength: 4 }).map((parameters) => `?${parameters.join('&')}`),
  { nil: '' },
);
const target = fc.oneof(
  { weight: 8, arbitrary: fc.tuple(pathArbitrary, query).map(([path, search]) => path + search) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom('http://127.0.0.1', 'http://example.com:8080', 'https://x', 'http://[::1]', 'http://a b'),
        pathArbitrary,
        query,
      )
      .map((parts) => parts.join('')),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '*',
      '',
      'v1/seasons',
      '//v1/seasons',
      '/v1/seasons#x',
      '/v1/seasons?#',
      `/${'a'.repeat(5000)}`,
      `/v1/seasons?x=${'y'.repeat(20_000)}`,
    ),
  },
);
const METHODS = [...http.METHODS, 'get', 'FOO', 'M-SEARCH', 'LINK', 'UNLINK', 'G ET'];
const method = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('GET', 'HEAD', 'OPTIONS') },
  { weight: 4, arbitrary: fc.constantFrom(...METHODS) },
);
const HOSTS = [
  '127.0.0.1',
  'x',
  '',
  'a b',
  '[',
  'user:pass@host',
  'hé',
  '127.0.0.1:',
  '[::1]:80',
  'localhost:99999',
  'EXAMPLE.com',
  'x'.repeat(300),
  'a/b',
  'a?b',
  '%41',
];
const host = fc.option(fc.constantFrom(...HOSTS), { nil: undefined, freq: 8 });
const header = fc.oneof(
  fc.constantFrom(
    'Accept-Encoding: gzip',
    'Accept-Encoding: identity;q=0',
    'Accept-Encoding: *;q=0',
    'Accept-Encoding: br, gzip;q=0',
    'Accept-Encoding: gzip;q=0.0001, identity;q=0',
    'Accept-Encoding: x'.padEnd(400, 'y'),
    'Expect: garbage',
    'Expect: 100-continue',
    'Range: bytes=0-1',
    'Range: nonsense',
    'If-None-Match: *',
    'If-None-Match: W/"",,,',
    'If-Modified-Since: yesterday',
    'If-Modified-Since: Thu, 01 Jan 1970 00:00:00 GMT',
    'Cache-Control: no-cache',
    'Pragma: no-cache',
    'Origin: https://app.example',
    'Access-Control-Request-Method: GET',
    'Access-Control-Request-Headers: x-a, x-b',
    'X-Forwarded-For: 1.2.3.4',
    'Content-Type: text/plain',
    'Cookie: a=b',
    'Authorization: Basic Zm9vOmJhcg==',
    'X-Empty:',
    'X-Spaces:    ',
    'X-Latin1: caf\u00e9',
    `X-Huge: ${'h'.repeat(8_000)}`,
    `X-Huger: ${'h'.repeat(20_000)}`,
    'Bad Header: x',
    'NoColon',
    ': novalue',
    'X-Tab:\tv',
    ' X-Folded: v',
  ),
  fc.integer({ min: 1, max: 120 }).map((count) => Array.from({ length: count }, (_, i) => `X-Many-${i}: ${i}`).join('\r\n')),
);
const version = fc.oneof(
  { weight: 8, arbitrary: fc.constant('HTTP/1.1') },
  { weight: 2, arbitrary: fc.constantFrom('HTTP/1.0', 'HTTP/2.0', 'HTTP/9.9', 'HTTP/1.1 extra', 'http/1.1', '') },
);
/** A body sent with its framing: none, a length, chunked (with an odd coding before it). */
const framing = fc.constantFrom<{ headers: string[]; body: string }>(
  { headers: [], body: '' },
  { headers: ['Content-Length: 5'], body: 'hello' },
  { headers: ['Transfer-Encoding: chunked'], body: '5\r\nhello\r\n0\r\n\r\n' },
  { headers: ['Transfer-Encoding: gzip, chunked'], body: '0\r\n\r\n' },
  { headers: ['Content-Length: 2', 'Content-Length: 3'], body: 'abc' },
  { headers: ['Content-Length: 1', 'Transfer-Encoding: chunked'], body: '0\r\n\r\n' },
);

interface OneRequest {
  method: string;
  target: string;
  version: string;
  host: string | undefined;
  headers: string[];
  framing: { headers: string[]; body: string };
}

const oneRequest: fc.Arbitrary<OneRequest> = fc.record({
  method,
  target,
  version,
  host,
  headers: fc.array(header, { maxLength: 3 }),
  framing,
});

function requestText(request: OneRequest, last: boolean): string {
  const lines = [`${request.method} ${request.target} ${request.version}`.trimEnd()];
  if (request.host !== undefined) lines.push(`Host: ${request.host}`);
  lines.push(...request.headers, ...request.framing.headers);
  if (last) lines.push('Connection: close');
  return `${lines.join('\r\n')}\r\n\r\n${request.framing.body}`;
}

/** One request, or two pipelined, or a malformed request line. */
export const hostileRequest: fc.Arbitrary<HostileRequest> = fc.oneof(
  { weight: 8, arbitrary: oneRequest.map((request) => finished([request])) },
  { weight: 2, arbitrary: fc.tuple(oneRequest, oneRequest).map((requests) => finished(requests)) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(
        'GET\r\n\r\n',
        'GET /v1/seasons\r\n\r\n',
        'GET  /v1/seasons  HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
        'GET /v1/seasons HTTP/1.1\nHost: x\nConnection: close\n\n',
        '\u0000\u0001\u0002',
        'GET /\u0000 HTTP/1.1\r\nHost: x\r\n\r\n',
        'GET /v1/seasons HTTP/1.1\r\nHost: x\r\nHost: y\r\nConnection: close\r\n\r\n',
      )
      .map((text) => ({ bytes: Buffer.from(text, 'latin1'), methods: ['GET'], label: JSON.stringify(text) })),
  },
);

function finished(requests: OneRequest[]): HostileRequest {
  const text = requests.map((request, i) => requestText(request, i === requests.length - 1)).join('');
  // Characters above 0xff (a Host or path written with them) go out as UTF-8 bytes, the rest as single bytes.
  const bytes = /[^\u0000-\u00ff]/.test(text) ? Buffer.from(text, 'utf8') : Buffer.from(text, 'latin1');
  return {
    bytes,
    methods: requests.map((request) => request.method),
    label: JSON.stringify(text.length > 400 ? `${text.slice(0, 400)}...` : text),
  };
}

export interface RawAnswer {
  status: number;
  /** Header names in lower case; repeated headers joined by ', '. */
  headers: Record<string, string>;
  body: Buffer;
}

/** Sends the bytes and reads until the server closes (or `timeoutMs`): the final answers, interim 1xx left out. */
export function exchange(
  base: string,
  request: HostileRequest,
  timeoutMs = 10_000,
): Promise<{ answers: RawAnswer[]; timedOut: boolean; unreadable: string | null }> {
  const url = new URL(base);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    // Written, not ended: a client that half-closes its side has its answers dropped by Node's server.
    const socket = net.connect(Number(url.port), url.hostname, () => socket.write(request.bytes));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      socket.destroy();
    }, timeoutMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      const received = Buffer.concat(chunks);
      try {
        resolve({ answers: parseAnswers(received, request.methods), timedOut, unreadable: null });
      } catch (error) {
        resolve({
          answers: [],
          timedOut,
          unreadable: `${(error as Error).message} in ${JSON.stringify(received.toString('latin1').slice(0, 600))}`,
        });
      }
    });
  });
}

/** The answers in a byte stream, in order; framing by status, method, Content-Length and chunked encoding. */
export function parseAnswers(bytes: Buffer, methods: string[]): RawAnswer[] {
  const answers: RawAnswer[] = [];
  let at = 0;
  while (at < bytes.length) {
    const end = bytes.indexOf('\r\n\r\n', at);
    if (end === -1) throw new Error(`an answer's head never ends: ${JSON.stringify(bytes.subarray(at, at + 200).toString('latin1'))}`);
    const [statusLine = '', ...lines] = bytes.subarray(at, end).toString('latin1').split('\r\n');
    const match = /^HTTP\/1\.[01] (\d{3}) /.exec(`${statusLine} `);
    if (!match) throw new Error(`not an HTTP status line: ${JSON.stringify(statusLine)}`);
    const status = Number(match[1]);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
    }
    at = end + 4;
    if (status < 200) continue;
    const method = methods[answers.length] ?? 'GET';
    let body: Buffer = Buffer.alloc(0);
    // A request the server could not parse gets its error with a body, whatever its method.
    const unparsed = method.toUpperCase() === 'HEAD' && at < bytes.length && !bytes.subarray(at, at + 5).equals(Buffer.from('HTTP/'));
    if ((method.toUpperCase() !== 'HEAD' || unparsed) && status !== 204 && status !== 304) {
      if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
        const parts: Buffer[] = [];
        for (;;) {
          const lineEnd = bytes.indexOf('\r\n', at);
          const size = parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16);
          at = lineEnd + 2;
          if (!(size > 0)) {
            at = bytes.indexOf('\r\n', at) + 2;
            break;
          }
          parts.push(bytes.subarray(at, at + size));
          at += size + 2;
        }
        body = Buffer.concat(parts);
      } else if (headers['content-length'] !== undefined) {
        body = bytes.subarray(at, at + Number(headers['content-length']));
        at += body.length;
      } else {
        body = bytes.subarray(at);
        at = bytes.length;
      }
    }
    if (headers['content-encoding'] === 'gzip' && body.length > 0) body = zlib.gunzipSync(body);
    answers.push({ status, headers, body });
  }
  return answers;
}

/** The content types of the explorer's page and assets, the only documents that are not JSON. */
const STATIC_TYPES = /^(text\/html|text\/javascript|text\/css|application\/javascript|image\/png|image\/svg\+xml)(; charset=utf-8)?$/;

/** What is wrong with one answer (an empty list when nothing): the rules of every host. */
export function answerProblems(answer: RawAnswer, method: string, machinePaths: string[]): string[] {
  const problems: string[] = [];
  const text = answer.body.toString('utf8');
  if (answer.status >= 500) problems.push(`answered ${answer.status}`);
  if (text.includes(CANARY)) problems.push('a file from outside the tree was answered');
  if (/\n\s+at \S/.test(text) || /\.(ts|js):\d+:\d+/.test(text)) problems.push('a stack trace in the body');
  for (const machinePath of machinePaths)
    if (text.includes(machinePath)) problems.push(`a path of this machine (${machinePath}) in the body`);
  const type = answer.headers['content-type'] ?? '';
  const document = answer.status < 400;
  if (type !== 'application/json; charset=utf-8' && !(document && STATIC_TYPES.test(type)))
    problems.push(`Content-Type ${JSON.stringify(type)}`);
  if (answer.headers['access-control-allow-origin'] !== '*') problems.push('no Access-Control-Allow-Origin: *');
  if (!/^W\/"[^"]+"$/.test(answer.headers.etag ?? '')) problems.push(`ETag ${JSON.stringify(answer.headers.etag)}`);
  if (!answer.headers['cache-control']) problems.push('no Cache-Control');
  if (answer.status >= 400 && method.toUpperCase() !== 'HEAD') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const keys = parsed && typeof parsed === 'object' ? Object.keys(parsed) : [];
    if (keys.length !== 1 || keys[0] !== 'error' || typeof (parsed as { error: unknown }).error !== 'string')
      problems.push(`error body ${JSON.stringify(text.slice(0, 120))}`);
  }
  return problems;
}

/** Paths of this machine no body may name: the temporary folder, the tree, the repository, the home folder. */
export function machinePaths(tree: string): string[] {
  return [os.tmpdir(), tree, process.cwd(), os.homedir(), 'node_modules'].filter((text) => text.length > 1);
}

/**
 * fc.assert, with the failing assertion's own message first (uvu shows the start of a message only)
 * and what replays it.
 */
export async function holdsFor(property: fc.IAsyncProperty<[HostileRequest]>, options: { seed: number; numRuns: number }): Promise<void> {
  const result = await fc.check(property, options);
  if (!result.failed) return;
  const cause = result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance);
  throw new Error(`${cause}\n(after ${result.numRuns} runs; replay with seed ${result.seed}, path "${result.counterexamplePath}")`);
}

/**
 * A one-wallet tree for generated requests, with the canary beside it (and beside the folder it
 * links to): a request that reads outside the tree answers the canary. Also the tree's paths on this
 * machine, which no answer may show.
 */
export async function canaryTree(): Promise<{ out: string; paths: string[] }> {
  const built = await build({
    balances: [balance({ address: A, block_number: 0, timestamp: unix('2025-11-01T10:00:00Z'), balance: '5000000000000000000' })],
    seasons: [{ season: 1, as_of: null }],
    points: [{ season: 1, date: '2025-11-03', address: A, points: 5 }],
  });
  for (const dir of [path.dirname(built.out), path.dirname(fs.realpathSync(built.out))]) {
    fs.writeFileSync(path.join(dir, CANARY_FILE), JSON.stringify({ canary: CANARY }));
  }
  return { out: built.out, paths: machinePaths(fs.realpathSync(built.out)) };
}
