/**
 * `wallet-snapshot/client` over real HTTP: every function against the Node server over a small
 * built tree, each result equal to the document the host answers; a 4xx rejects at once with
 * the host's sentence; a 5xx or no answer is retried (counted on a loopback server that fails N
 * times); a remembered ETag is revalidated and a 304 resolves to the remembered document (counted);
 * validation on demand; and the bundle an app gets: minified and gzipped at most 5 KB, with no
 * dependency in it. The browser (cross-origin) and the Worker in workerd: test/slow/client.test.ts.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import { getEventListeners } from 'node:events';
import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import zlib from 'node:zlib';
import { build as esbuild } from 'esbuild';
import { ApiError, createClient, DEFAULT_TIMEOUT, type ClientOptions } from '../client/index.ts';
import { EtagMemory } from '../client/etag-memory.ts';
import { defaultBackoff } from '../client/request.ts';
import { validateDocument } from '../client/validation.ts';
import { A, build, tempDir, type Built } from './helpers/fixtures.ts';
import { request } from './helpers/http.ts';
import { API_TABLES } from './helpers/api-tree.ts';
import { startPreviewServer, type RunningServer } from '../server/index.ts';

const execFileAsync = promisify(execFile);
const UNKNOWN = `0x${'9'.repeat(40)}`;
const MIXED_CASE = A.toUpperCase().replace('0X', '0x');

let built: Built;
let server: RunningServer;
const raw = (path: string) => request(server.url, path);

async function start(): Promise<void> {
  built ??= await build(API_TABLES);
  server = await startPreviewServer({ dir: built.out, port: 0, host: '127.0.0.1' });
}

interface Sent {
  url: string;
  ifNoneMatch: string | null;
  status: number;
}

/** The runtime's fetch, with each request and its status noted. */
function countedFetch(sent: Sent[]): NonNullable<ClientOptions['fetch']> {
  return async (url, init) => {
    const response = await fetch(url, init);
    sent.push({ url, ifNoneMatch: init.headers['If-None-Match'] ?? null, status: response.status });
    return response;
  };
}

/**
 * A fetch over node:http, which sends the request's headers as they are: the Fetch standard adds
 * `Cache-Control: no-cache` to a request carrying `If-None-Match`, which this checks apart from.
 */
function plainFetch(sent: Sent[]): NonNullable<ClientOptions['fetch']> {
  return (url, init) =>
    new Promise((resolve, reject) => {
      http
        .get(url, { headers: init.headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk) => chunks.push(chunk));
          res.on('end', () => {
            const headers = new Headers();
            for (let i = 0; i < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
            const status = res.statusCode!;
            sent.push({ url, ifNoneMatch: init.headers['If-None-Match'] ?? null, status });
            resolve(new Response(status === 304 ? null : Buffer.concat(chunks), { status, headers }));
          });
        })
        .on('error', reject);
    });
}

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, ApiError);
    return error as ApiError;
  }
  throw new Error('expected a rejection, the call resolved');
}

const Documents = suite("client: every function answers the host's document");
Documents.before(start);
Documents.after(() => server.close());

Documents('each function resolves to the document the host serves, an address in any case sent as given', async () => {
  const sent: Sent[] = [];
  const client = createClient({ baseUrl: server.url, fetch: countedFetch(sent) });
  assert.equal(await client.portfolio(MIXED_CASE), built.json(`v1/address/${A}/portfolio.json`));
  assert.equal(await client.daily(A), built.json(`v1/address/${A}/portfolio/daily.json`));
  assert.equal(await client.leaderboard(1), built.json('v1/leaderboard/s1.json'));
  assert.equal(await client.leaderboard(2), built.json('v1/leaderboard/s2.json'));
  assert.equal(await client.points(A), built.json(`v1/address/${A}/points.json`));
  assert.equal(await client.pointsHistory(MIXED_CASE), built.json(`v1/address/${A}/points/history.json`));
  assert.equal(await client.seasons(), built.json('v1/seasons.json'));
  // A well-formed address the snapshot does not know: the no-history answers, with 200.
  assert.equal(await client.portfolio(UNKNOWN), {});
  assert.equal(await client.points(UNKNOWN), { seasons: [] });
  assert.equal(
    sent.map(({ url }) => url.slice(server.url.length)),
    [
      `/v1/address/${MIXED_CASE}/portfolio`,
      `/v1/address/${A}/portfolio/daily`,
      '/v1/leaderboard/s1',
      '/v1/leaderboard/s2',
      `/v1/address/${A}/points`,
      `/v1/address/${MIXED_CASE}/points/history`,
      '/v1/seasons',
      `/v1/address/${UNKNOWN}/portfolio`,
      `/v1/address/${UNKNOWN}/points`,
    ],
  );
});

Documents("from/to as YYYY-MM-DD or as a Date (its UTC calendar day), either alone: the host's answer to that query", async () => {
  const sent: Sent[] = [];
  const client = createClient({ baseUrl: `${server.url}/`, fetch: countedFetch(sent) });
  const daily = `/v1/address/${A}/portfolio/daily`;
  const history = `/v1/address/${A}/points/history`;
  // 23:30 in New York on the 16th is the 17th in UTC: a Date stands for its UTC day.
  const lateOnThe16th = new Date('2025-11-16T23:30:00-05:00');
  const inRange = await client.daily(A, { from: lateOnThe16th, to: '2025-11-18' });
  assert.equal(inRange, (await raw(`${daily}?from=2025-11-17&to=2025-11-18`)).json);
  assert.equal(
    inRange.days.map((day) => day.date),
    ['2025-11-17', '2025-11-18'],
  );
  assert.equal(await client.daily(A, { from: '2025-11-19' }), (await raw(`${daily}?from=2025-11-19`)).json);
  assert.equal(await client.daily(A, { to: new Date(Date.UTC(2025, 9, 31)) }), (await raw(`${daily}?to=2025-10-31`)).json);
  const points = await client.pointsHistory(A, { from: '2025-11-05', to: new Date('2025-11-18T12:00:00Z') });
  assert.equal(points, (await raw(`${history}?from=2025-11-05&to=2025-11-18`)).json);
  const daysBySeason = points.seasons.map((season) => [season.season, season.days.map((day) => day.date)]);
  assert.equal(daysBySeason, [
    [1, ['2025-11-05']],
    [2, ['2025-11-18']],
  ]);
  assert.equal(await client.pointsHistory(A, {}), built.json(`v1/address/${A}/points/history.json`));
  assert.equal(
    sent.map(({ url }) => url.slice(server.url.length)),
    [
      `${daily}?from=2025-11-17&to=2025-11-18`,
      `${daily}?from=2025-11-19`,
      `${daily}?to=2025-10-31`,
      `${history}?from=2025-11-05&to=2025-11-18`,
      history,
    ],
  );
  // What the client can judge is refused before any request (docs/api.md): an invalid Date and an
  // inverted range are RangeErrors, a bound of another type a TypeError; a string is the host's to judge.
  const refusals: [() => Promise<unknown>, ErrorConstructor, string][] = [
    [() => client.daily(A, { from: new Date('no date') }), RangeError, 'from is an invalid Date; give a Date or a YYYY-MM-DD string'],
    [() => client.pointsHistory(A, { to: new Date(Number.NaN) }), RangeError, 'to is an invalid Date; give a Date or a YYYY-MM-DD string'],
    [
      () => client.daily(A, { from: '2025-11-19', to: '2025-11-18' }),
      RangeError,
      'from (2025-11-19) is later than to (2025-11-18); give from on or before to',
    ],
    [
      () => client.pointsHistory(A, { from: new Date('2025-11-19T01:00:00Z'), to: '2025-11-18' }),
      RangeError,
      'from (2025-11-19) is later than to (2025-11-18); give from on or before to',
    ],
    [() => client.daily(A, { from: 20251101 as never }), TypeError, 'from is number; give a Date or a YYYY-MM-DD string'],
  ];
  for (const [call, kind, message] of refusals) {
    const refused = await call().catch((error: Error) => error);
    assert.instance(refused, kind);
    assert.is((refused as Error).message, message);
  }
  assert.is(sent.length, 5);
});

Documents('a base URL with a path: the API is looked up under it; a base that is not an absolute URL is refused', async () => {
  const sent: Sent[] = [];
  const client = createClient({ baseUrl: new URL(`${server.url}/mirror?x=1`), fetch: countedFetch(sent), retries: 0 });
  const error = await rejection(client.seasons());
  assert.is(sent[0]!.url, `${server.url}/mirror/v1/seasons`);
  assert.is(error.status, 404);
  assert.throws(() => createClient({ baseUrl: '/api' }), /baseUrl "\/api" is not an absolute URL/);
  assert.throws(() => createClient({ baseUrl: server.url, retries: -1 }), /retries is -1; expected a whole number/);
});

Documents("4xx rejects at once with an ApiError: the status, the URL and the host's sentence; nothing retried", async () => {
  const sent: Sent[] = [];
  const client = createClient({ baseUrl: server.url, fetch: countedFetch(sent), backoff: () => 0 });
  const cases: [() => Promise<unknown>, string][] = [
    [() => client.leaderboard(9), '/v1/leaderboard/s9'],
    [() => client.leaderboard(0), '/v1/leaderboard/s0'],
    [() => client.portfolio('0x123'), '/v1/address/0x123/portfolio'],
    [() => client.points(`${A}0`), `/v1/address/${A}0/points`],
    [() => client.daily(A, { from: '2025-11-19', to: '2025-02-30x' }), `/v1/address/${A}/portfolio/daily?from=2025-11-19&to=2025-02-30x`],
    [() => client.pointsHistory(A, { from: '2025-02-30' }), `/v1/address/${A}/points/history?from=2025-02-30`],
  ];
  for (const [call, path] of cases) {
    const expected = await raw(path);
    assert.is(expected.status, 400, path);
    const error = await rejection(call());
    assert.equal([error.kind, error.status, error.error], ['http', 400, expected.json.error]);
    assert.is(error.url, `${server.url}${path}`);
    assert.is(error.message, `GET ${server.url}${path} answered 400: ${expected.json.error}`);
  }
  assert.is(sent.length, cases.length, 'one request each');
});

const Revalidation = suite('client: ETags remembered and revalidated');
Revalidation.before(start);
Revalidation.after(() => server.close());

Revalidation('a second call sends If-None-Match; the 304 resolves to the remembered document', async () => {
  const sent: Sent[] = [];
  const client = createClient({ baseUrl: server.url, fetch: plainFetch(sent) });
  const first = await client.leaderboard(2);
  first.entries.length = 0; // what the app does with a document does not change the remembered one
  const second = await client.leaderboard(2);
  assert.equal(second, built.json('v1/leaderboard/s2.json'));
  const etag = (await raw('/v1/leaderboard/s2')).headers.etag;
  assert.equal(
    sent.map(({ ifNoneMatch, status }) => [ifNoneMatch, status]),
    [
      [null, 200],
      [etag, 304],
    ],
  );
  // A range is a URL of its own, with its own ETag.
  const range = { from: '2025-11-17', to: '2025-11-18' };
  assert.equal(await client.daily(A, range), await client.daily(A, range));
  assert.equal(
    sent.slice(2).map(({ ifNoneMatch, status }) => [ifNoneMatch === null, status]),
    [
      [true, 200],
      [false, 304],
    ],
  );
});

Revalidation("the runtime's fetch: the same document whether the host answers 304 or, to fetch's no-cache, 200", async () => {
  const sent: Sent[] = [];
  const client = createClient({ baseUrl: server.url, fetch: countedFetch(sent) });
  assert.equal(await client.seasons(), built.json('v1/seasons.json'));
  assert.equal(await client.seasons(), built.json('v1/seasons.json'));
  assert.is(sent.length, 2);
  assert.is(sent[1]!.ifNoneMatch, (await raw('/v1/seasons')).headers.etag);
  assert.ok([200, 304].includes(sent[1]!.status), String(sent[1]!.status));
});

Revalidation('bounded: the least recently used URL is forgotten first; cacheSize 0 remembers nothing', async () => {
  const sent: Sent[] = [];
  const client = createClient({ baseUrl: server.url, fetch: plainFetch(sent), cacheSize: 2 });
  for (const season of [1, 2, 1]) await client.leaderboard(season);
  await client.seasons(); // forgets s2, the least recently used
  await client.leaderboard(1);
  await client.leaderboard(2);
  assert.equal(
    sent.map(({ url, status }) => [url.slice(server.url.length), status]),
    [
      ['/v1/leaderboard/s1', 200],
      ['/v1/leaderboard/s2', 200],
      ['/v1/leaderboard/s1', 304],
      ['/v1/seasons', 200],
      ['/v1/leaderboard/s1', 304],
      ['/v1/leaderboard/s2', 200],
    ],
  );
  const none: Sent[] = [];
  const forgetful = createClient({ baseUrl: server.url, fetch: plainFetch(none), cacheSize: 0 });
  await forgetful.seasons();
  await forgetful.seasons();
  assert.equal(
    none.map(({ ifNoneMatch }) => ifNoneMatch),
    [null, null],
  );
  const memory = new EtagMemory(2);
  memory.set('a', { etag: '"1"', text: '1' });
  memory.set('b', { etag: '"2"', text: '2' });
  memory.get('a');
  memory.set('c', { etag: '"3"', text: '3' });
  assert.equal([memory.get('b'), memory.get('a')?.text, memory.get('c')?.text, memory.size], [undefined, '1', '3', 2]);
});

Revalidation('validate: true checks each document against its schema (loaded on demand); a document off its schema rejects', async () => {
  const client = createClient({ baseUrl: server.url, validate: true });
  assert.equal(await client.daily(A), built.json(`v1/address/${A}/portfolio/daily.json`));
  assert.equal(await client.pointsHistory(A), built.json(`v1/address/${A}/points/history.json`));
  assert.equal(await client.leaderboard(2), built.json('v1/leaderboard/s2.json'));
  await withFlakyServer(
    0,
    async (base, requests) => {
      for (const validate of [true, validateDocument]) {
        const error = await rejection(createClient({ baseUrl: base, validate }).seasons());
        assert.is(error.status, 200);
        const issue = 'seasons.0.frozen: Invalid input: expected boolean, received string';
        assert.is(error.message, `GET ${base}/v1/seasons answered a document that is not a seasons document: ${issue}`);
      }
      assert.is(requests(), 2);
    },
    SEASONS_OFF_SCHEMA,
  );
  assert.throws(() => createClient({ baseUrl: server.url, validate: true, parse: JSON.parse }), /validate and parse cannot be combined/);
});

const SEASONS = '{"seasons":[{"season":1,"asOf":"2025-11-05","frozen":true,"totalParticipants":3}]}';
const SEASONS_OFF_SCHEMA = '{"seasons":[{"season":1,"asOf":"2025-11-05","frozen":"yes","totalParticipants":3}]}';

/**
 * A loopback host whose first `failures` answers fail (`mode`: 503 with an error body, or the
 * connection destroyed without an answer), then answers `body`; `requests()` counts what it got.
 */
async function withFlakyServer(
  failures: number,
  body: (base: string, requests: () => number) => Promise<void>,
  document = SEASONS,
  mode: 'status' | 'network' | 'too-many' = 'status',
): Promise<void> {
  let count = 0;
  const flaky = http.createServer((req, res) => {
    count++;
    if (count <= failures) {
      if (mode === 'network') return req.socket.destroy();
      const status = mode === 'too-many' ? 429 : 503;
      res.writeHead(status, { 'Content-Type': 'application/json' });
      return res.end(JSON.stringify({ error: `Failure ${count} of ${failures}.` }));
    }
    res.writeHead(200, { 'Content-Type': 'application/json', ETag: 'W/"one"' });
    res.end(document);
  });
  await new Promise<void>((resolve) => flaky.listen(0, '127.0.0.1', resolve));
  const { port } = flaky.address() as { port: number };
  try {
    await body(`http://127.0.0.1:${port}`, () => count);
  } finally {
    flaky.closeAllConnections();
    await new Promise((resolve) => flaky.close(resolve));
  }
}

const Retries = suite('client: 5xx and network failures retried with backoff, nothing else');

Retries('two 503s then the document: three requests, resolved (the default: 2 retries), after waits for retries 1 and 2', async () => {
  await withFlakyServer(2, async (base, requests) => {
    const waits: number[] = [];
    const client = createClient({ baseUrl: base, backoff: (retry) => (waits.push(retry), 0) });
    assert.equal(await client.seasons(), JSON.parse(SEASONS));
    assert.is(requests(), 3);
    assert.equal(waits, [1, 2]);
  });
});

Retries('three 503s: rejects with the last status and sentence after three requests', async () => {
  await withFlakyServer(3, async (base, requests) => {
    const error = await rejection(createClient({ baseUrl: base, backoff: () => 0 }).seasons());
    assert.is(requests(), 3);
    assert.equal([error.kind, error.status, error.error], ['http', 503, 'Failure 3 of 3.']);
    assert.is(error.message, `GET ${base}/v1/seasons answered 503 (3 attempts): Failure 3 of 3.`);
  });
});

Retries('retries: 4 outlasts four failures; retries: 0 tries once', async () => {
  await withFlakyServer(4, async (base, requests) => {
    assert.equal(await createClient({ baseUrl: base, retries: 4, backoff: () => 0 }).seasons(), JSON.parse(SEASONS));
    assert.is(requests(), 5);
  });
  await withFlakyServer(1, async (base, requests) => {
    const error = await rejection(createClient({ baseUrl: base, retries: 0 }).seasons());
    assert.is([requests(), error.status, error.message].join(' '), `1 503 GET ${base}/v1/seasons answered 503: Failure 1 of 1.`);
  });
});

Retries("no answer (the connection cut): retried; after the last try, status null and the network's error as the cause", async () => {
  await withFlakyServer(
    2,
    async (base, requests) => {
      assert.equal(await createClient({ baseUrl: base, backoff: () => 0 }).seasons(), JSON.parse(SEASONS));
      assert.is(requests(), 3);
    },
    SEASONS,
    'network',
  );
  await withFlakyServer(
    3,
    async (base, requests) => {
      const error = await rejection(createClient({ baseUrl: base, backoff: () => 0 }).seasons());
      assert.is(requests(), 3);
      assert.equal([error.kind, error.status, error.error], ['network', null, null]);
      assert.instance(error.cause, Error);
      assert.match(error.message, new RegExp(`^GET ${base}/v1/seasons got no answer \\(3 attempts\\): fetch failed \\(`));
    },
    SEASONS,
    'network',
  );
  // A port nothing listens on (the flaky server's, once closed).
  let closed = '';
  await withFlakyServer(0, async (base) => void (closed = base));
  const error = await rejection(createClient({ baseUrl: closed, retries: 1, backoff: () => 0 }).seasons());
  assert.match(error.message, /got no answer \(2 attempts\): fetch failed \(.*ECONNREFUSED/);
});

Retries('a 429 (or any 4xx) is not retried', async () => {
  await withFlakyServer(
    1,
    async (base, requests) => {
      const error = await rejection(createClient({ baseUrl: base, backoff: () => 0 }).seasons());
      assert.is(requests(), 1);
      assert.is(error.status, 429);
      assert.is(error.message, `GET ${base}/v1/seasons answered 429: Failure 1 of 1.`);
    },
    SEASONS,
    'too-many',
  );
});

Retries('the default backoff: small, doubling, jittered between half and all of 100 ms x 2^(retry-1)', () => {
  for (const [retry, low, high] of [
    [1, 50, 100],
    [2, 100, 200],
    [3, 200, 400],
  ] as const) {
    const waits = Array.from({ length: 200 }, () => defaultBackoff(retry));
    assert.ok(
      waits.every((wait) => wait >= low && wait <= high),
      `retry ${retry}: ${Math.min(...waits)}..${Math.max(...waits)}`,
    );
    assert.ok(new Set(waits).size > 150, `retry ${retry} is jittered`);
  }
});

/**
 * A loopback host that answers each request by `answer` (after `delay` ms, or never when null),
 * noting when each request's connection closed: an abandoned request closes its connection.
 */
interface Held {
  base: string;
  requests(): number;
  /** How many requests' connections closed before their answer was sent. */
  abandoned(): number;
  /** Resolves once `count` requests were abandoned. */
  abandonedBy(count: number): Promise<void>;
}

async function withHost(
  respond: { delay: number | null; status?: number; body?: string },
  body: (host: Held) => Promise<void>,
): Promise<void> {
  let count = 0;
  let abandoned = 0;
  const waiting: (() => void)[] = [];
  const held = http.createServer((_req, res) => {
    count++;
    res.on('close', () => {
      if (res.writableFinished) return;
      abandoned++;
      for (const wake of waiting.splice(0)) wake();
    });
    if (respond.delay === null) return;
    setTimeout(() => {
      if (res.destroyed) return;
      res.writeHead(respond.status ?? 200, { 'Content-Type': 'application/json' });
      res.end(respond.body ?? SEASONS);
    }, respond.delay);
  });
  await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
  const { port } = held.address() as { port: number };
  try {
    await body({
      base: `http://127.0.0.1:${port}`,
      requests: () => count,
      abandoned: () => abandoned,
      abandonedBy: async (wanted) => {
        while (abandoned < wanted) await new Promise<void>((resolve) => waiting.push(resolve));
      },
    });
  } finally {
    held.closeAllConnections();
    await new Promise((resolve) => held.close(resolve));
  }
}

/** The rejection of `promise` and how many milliseconds after `since` it came. */
async function rejectionAt(promise: Promise<unknown>, since: number): Promise<{ error: unknown; after: number }> {
  try {
    await promise;
  } catch (error) {
    return { error, after: performance.now() - since };
  }
  throw new Error('expected a rejection, the call resolved');
}

const isAbortError = (error: unknown) => error instanceof DOMException && error.name === 'AbortError';

const Limits = suite('client: a timeout over the whole call, and a signal that stops it at once');

Limits('a host that accepts and never answers: rejected at the timeout with kind timeout, the request abandoned, not retried', async () => {
  await withHost({ delay: null }, async (host) => {
    const started = performance.now();
    const { error, after } = await rejectionAt(createClient({ baseUrl: host.base, timeout: 300 }).seasons(), started);
    assert.instance(error, ApiError);
    const failure = error as ApiError;
    assert.equal([failure.kind, failure.status, failure.error, failure.url], ['timeout', null, null, `${host.base}/v1/seasons`]);
    assert.is(failure.message, `GET ${host.base}/v1/seasons got no whole answer within 300 ms (the timeout)`);
    assert.ok(after >= 295 && after < 1500, `rejected after ${after} ms`);
    await host.abandonedBy(1);
    assert.is(host.requests(), 1, 'a timeout is not retried');
  });
});

Limits('a slow host: answered within the timeout it resolves; past it, kind timeout; a call sets its own, over the client’s', async () => {
  await withHost({ delay: 250 }, async (host) => {
    const quick = createClient({ baseUrl: host.base, timeout: 50 });
    assert.equal(await quick.seasons({ timeout: 5_000 }), JSON.parse(SEASONS));
    assert.equal(await createClient({ baseUrl: host.base, timeout: 5_000 }).seasons(), JSON.parse(SEASONS));
    const error = await rejection(quick.seasons());
    assert.is(error.kind, 'timeout');
    assert.is(error.message, `GET ${host.base}/v1/seasons got no whole answer within 50 ms (the timeout)`);
    const late = await rejection(createClient({ baseUrl: host.base }).seasons({ timeout: 100 }));
    assert.is(late.kind, 'timeout');
  });
});

Limits('the timeout covers the retries and the waits between them: the last status is the error’s', async () => {
  await withHost({ delay: 0, status: 503, body: '{"error":"Down."}' }, async (host) => {
    const started = performance.now();
    const client = createClient({ baseUrl: host.base, retries: 10, backoff: () => 120, timeout: 300 });
    const { error, after } = await rejectionAt(client.seasons(), started);
    const failure = error as ApiError;
    assert.equal([failure.kind, failure.status], ['timeout', 503]);
    assert.match(
      failure.message,
      /^GET \S+ got no whole answer within 300 ms \(the timeout\) \(3 attempts\); the last status answered was 503$/,
    );
    assert.ok(after < 1000, `rejected after ${after} ms, not after ten waits`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.is(host.requests(), 3, 'no attempt after the timeout');
  });
});

Limits('30,000 ms by default, for every call; Infinity is none; a timeout that is not above 0 is refused', async () => {
  assert.is(DEFAULT_TIMEOUT, 30_000);
  const delays: number[] = [];
  const real = globalThis.setTimeout;
  globalThis.setTimeout = ((handler: () => void, delay?: number) => {
    delays.push(delay ?? 0);
    return real(handler, delay);
  }) as typeof setTimeout;
  try {
    await withHost({ delay: 0 }, async (host) => {
      await createClient({ baseUrl: host.base }).seasons();
      await createClient({ baseUrl: host.base, timeout: Infinity }).seasons();
      await createClient({ baseUrl: host.base, timeout: 1234 }).seasons({ timeout: Infinity });
    });
  } finally {
    globalThis.setTimeout = real;
  }
  assert.ok(delays.includes(30_000), `the timers set: ${delays}`);
  assert.not.ok(delays.includes(1234), 'the call’s Infinity over the client’s 1234');
  for (const timeout of [0, -1, Number.NaN, '5' as never]) {
    assert.throws(
      () => createClient({ baseUrl: 'http://127.0.0.1:9', timeout }),
      /^timeout is .*; expected milliseconds, a number above 0/,
    );
  }
  const refused = await createClient({ baseUrl: 'http://127.0.0.1:9' })
    .seasons({ timeout: 0 })
    .catch((error: Error) => error);
  assert.instance(refused, TypeError);
  assert.match((refused as Error).message, "the call's timeout is 0; expected milliseconds");
  assert.throws(() => createClient({ baseUrl: 'http://127.0.0.1:9', signal: {} as never }), /^signal is not an AbortSignal/);
});

Limits('an abort rejects at once with the platform’s AbortError, closes the request and is never retried', async () => {
  await withHost({ delay: null }, async (host) => {
    const controller = new AbortController();
    const pending = createClient({ baseUrl: host.base, retries: 5, backoff: () => 0 }).seasons({ signal: controller.signal });
    while (host.requests() === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const aborted = performance.now();
    controller.abort();
    const { error, after } = await rejectionAt(pending, aborted);
    assert.ok(isAbortError(error), String(error));
    assert.ok(after < 50, `rejected ${after} ms after the abort`);
    await host.abandonedBy(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.is(host.requests(), 1, 'not retried');
    // A signal aborted already: no request at all. A reason of the caller's is what the call rejects with, as fetch does.
    const before = host.requests();
    assert.ok(
      isAbortError(
        await createClient({ baseUrl: host.base })
          .seasons({ signal: AbortSignal.abort() })
          .catch((e) => e),
      ),
    );
    const reason = new Error('the user left the page');
    const own = new AbortController();
    own.abort(reason);
    assert.is(
      await createClient({ baseUrl: host.base })
        .seasons({ signal: own.signal })
        .catch((e) => e),
      reason,
    );
    assert.is(host.requests(), before);
  });
});

Limits('an abort during the wait before a retry: at once, with no further request', async () => {
  await withHost({ delay: 0, status: 503 }, async (host) => {
    const controller = new AbortController();
    const pending = createClient({ baseUrl: host.base, backoff: () => 60_000 }).seasons({ signal: controller.signal });
    while (host.requests() === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const aborted = performance.now();
    controller.abort();
    const { error, after } = await rejectionAt(pending, aborted);
    assert.ok(isAbortError(error), String(error));
    assert.ok(after < 50, `rejected ${after} ms after the abort`);
    assert.is(host.requests(), 1);
  });
});

Limits(
  "the client's signal stops every call, a call's own joins it; the fetch given is handed the signal; no listener left behind",
  async () => {
    await withHost({ delay: null }, async (host) => {
      const client = new AbortController();
      const given: AbortSignal[] = [];
      const api = createClient({
        baseUrl: host.base,
        signal: client.signal,
        fetch: (url, init) => {
          given.push(init.signal);
          return fetch(url, init);
        },
      });
      const calls = [api.seasons(), api.leaderboard(1), api.points(A, { signal: new AbortController().signal })];
      while (host.requests() < 3) await new Promise((resolve) => setTimeout(resolve, 5));
      client.abort();
      for (const call of calls) assert.ok(isAbortError(await call.catch((e) => e)));
      assert.ok(given.length === 3 && given.every((signal) => signal.aborted), 'each request was given a signal, now aborted');
      await host.abandonedBy(3);
    });
    await withHost({ delay: 0 }, async (host) => {
      const lasting = new AbortController();
      const api = createClient({ baseUrl: host.base, signal: lasting.signal });
      for (let i = 0; i < 20; i++) await api.seasons({ signal: lasting.signal });
      assert.is(getEventListeners(lasting.signal, 'abort').length, 0);
    });
  },
);

const Bundle = suite("client: what it adds to an app's bundle");

Bundle('an app using every function, bundled and minified by esbuild: at most 5 KB gzipped, no dependency, no schema', async () => {
  const dir = tempDir('ws-client-bundle-');
  const app = path.join(dir, 'app.ts');
  const client = path.join(import.meta.dirname, '..', 'client', 'index.ts');
  fs.writeFileSync(
    app,
    `import { ApiError, createClient } from ${JSON.stringify(client)};
const api = createClient({ baseUrl: 'https://api.example.com' });
const a = '0x${'1'.repeat(40)}';
async function main() {
  try {
    console.log(await api.portfolio(a), await api.daily(a, { from: new Date(), to: '2025-11-20' }), await api.leaderboard(2),
      await api.points(a), await api.pointsHistory(a, { from: '2025-11-01' }), await api.seasons());
  } catch (error) {
    if (error instanceof ApiError) console.log(error.status);
  }
}
void main();
`,
  );
  // Without code splitting, the strictest case: anything reachable from the entry would be inlined.
  for (const format of ['esm', 'iife'] as const) {
    const options = { bundle: true, minify: true, format, platform: 'browser', write: false, metafile: true, logLevel: 'silent' } as const;
    const result = await esbuild({ entryPoints: [app], ...options });
    assert.is(result.outputFiles.length, 1);
    const gzipped = zlib.gzipSync(result.outputFiles[0]!.contents, { level: 9 }).length;
    assert.ok(gzipped <= 5 * 1024, `${format}: ${gzipped} bytes gzipped`);
    const inputs = Object.keys(result.metafile.inputs).map((input) => path.relative(process.cwd(), path.resolve(input)));
    const others = inputs.filter((input) => !input.startsWith('client/') && input !== path.relative(process.cwd(), app));
    assert.equal(others, [], `${format}: only the client's own modules`);
    assert.not.ok(inputs.includes('client/validation.ts'), `${format}: the schemas are not in the bundle`);
    const minified = result.outputFiles[0]!.contents.length;
    process.stdout.write(`  the client in an app (${format}): ${minified} bytes minified, ${gzipped} gzipped\n`);
  }
});

Bundle('validate: true in a bundled app: rejects, saying to pass validateDocument; passed, it validates', async () => {
  const dir = tempDir('ws-client-bundled-');
  const source = path.join(import.meta.dirname, '..', 'client');
  const app = `import { createClient } from ${JSON.stringify(path.join(source, 'index.ts'))};
import { validateDocument } from ${JSON.stringify(path.join(source, 'validation.ts'))};
const baseUrl = process.argv[2];
const given = await createClient({ baseUrl, validate: validateDocument }).seasons();
const onDemand = await createClient({ baseUrl, validate: true }).seasons().then(() => 'resolved', (error) => error.message);
console.log(JSON.stringify({ given, onDemand }));
`;
  const stdin = { contents: app, resolveDir: dir, loader: 'js' } as const;
  const outfile = path.join(dir, 'index.js');
  const result = await esbuild({ stdin, bundle: true, format: 'esm', platform: 'node', outfile, logLevel: 'silent' });
  assert.equal(result.errors, []);
  await withFlakyServer(0, async (base) => {
    // Asynchronously: the host answering the app is in this process.
    const ran = await execFileAsync(process.execPath, [path.join(dir, 'index.js'), base], { encoding: 'utf8', timeout: 20_000 });
    const { given, onDemand } = JSON.parse(ran.stdout);
    assert.equal(given, JSON.parse(SEASONS));
    assert.is(
      onDemand,
      `validate: true could not load the schemas beside the client: this module (${pathToFileURL(path.join(dir, 'index.js')).href}) ` +
        "is not wallet-snapshot's client/index.js, beside which they are. In a bundled app, a Worker or wallet-snapshot-client, pass the validator itself: " +
        "import { validateDocument } from 'wallet-snapshot/client/validation' and createClient({ ..., validate: validateDocument }).",
    );
  });
});

Documents.run();
Revalidation.run();
Retries.run();
Limits.run();
Bundle.run();
