/**
 * The HTTP interface on every host: one suite, run against the Node server and against the
 * Cloudflare Worker in workerd (its R2 bucket loaded from the same tree), over real HTTP on a
 * loopback port. Both must give the same answers.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { A, SUB, build, type Built } from './helpers/fixtures.ts';
import { rawExchange, request, type Answer } from './helpers/http.ts';
import { startHost, type Host, type Runtime } from './helpers/hosts.ts';
import { exchange } from './helpers/hostile-requests.ts';
import { API_TABLES } from './helpers/api-tree.ts';

/** Both runtimes of `serve`, and the Worker over a tree published to a real S3-protocol server. */
const RUNTIMES: Runtime[] = ['node', 'workerd', 'published'];

const UNKNOWN = `0x${'9'.repeat(40)}`;
const portfolio = `/v1/address/${A}/portfolio`;
const daily = `/v1/address/${A}/portfolio/daily`;
const pointsHistory = `/v1/address/${A}/points/history`;
let built: Built;
const fileText = (file: string) => fs.readFileSync(path.join(built.out, file), 'utf8');
/** What each runtime answered to the same requests, compared at the end. */
const answers = new Map<Runtime, Map<string, Answer>>();

async function tree(): Promise<Built> {
  built ??= await build(API_TABLES);
  return built;
}

for (const runtime of RUNTIMES) {
  const Http = suite(`HTTP interface (${runtime})`);
  let host: Host;
  let base: string;
  const seen = new Map<string, Answer>();
  answers.set(runtime, seen);
  /** A request, remembered for the comparison of runtimes. */
  const ask = async (path: string, options: { method?: string; headers?: Record<string, string> } = {}) => {
    const answer = await request(base, path, options);
    seen.set(`${options.method ?? 'GET'} ${path} ${JSON.stringify(options.headers ?? {})}`, answer);
    return answer;
  };

  Http.before(async () => {
    host = await startHost(runtime, (await tree()).out);
    base = host.url;
  });
  Http.after(() => host.close());

  Http('the documents answer exactly the files; addresses in any case', async () => {
    const history = await ask(portfolio.replace(A, A.toUpperCase().replace('0X', '0x')));
    assert.is(history.status, 200);
    assert.is(history.text, fileText(`v1/address/${A}/portfolio.json`));
    assert.is((await ask(daily)).text, fileText(`v1/address/${A}/portfolio/daily.json`));
    assert.is((await ask('/v1/leaderboard/s2')).text, fileText('v1/leaderboard/s2.json'));
    assert.is((await ask('/v1/openapi.json')).text, fileText('v1/openapi.json'));
  });

  if (runtime === 'published') {
    Http('a published document is answered as its archive stores it (gzip), whole', async () => {
      const answer = await ask(daily, { headers: { 'Accept-Encoding': 'gzip' } });
      assert.is(answer.headers['content-encoding'], 'gzip');
      assert.is(answer.text, fileText(`v1/address/${A}/portfolio/daily.json`));
    });
  }

  Http('points standing and the seasons index (v1.2); the explorer page with its own content types', async () => {
    assert.is((await ask(`/v1/address/${A.toUpperCase().replace('0X', '0x')}/points`)).text, fileText(`v1/address/${A}/points.json`));
    assert.equal(
      (await ask(`/v1/address/${A}/points`)).json.seasons.map((s: any) => [s.season, s.rank, s.totalPoints]),
      [
        [1, 1, 5],
        [2, 1, 10],
      ],
    );
    const none = await ask(`/v1/address/${UNKNOWN}/points`);
    assert.is(none.status, 200);
    assert.equal(none.json, { seasons: [] });
    assert.is((await ask('/v1/seasons')).text, fileText('v1/seasons.json'));
    const page = await ask('/');
    assert.is(page.status, 200);
    assert.is(page.headers['content-type'], 'text/html; charset=utf-8');
    assert.is(page.text, fileText('index.html'));
    assert.is((await ask('/index.html')).text, page.text);
    const script = /src="\/?(explorer\/[^"]+\.js)"/.exec(page.text)![1]!;
    const asset = await ask(`/${script}`);
    assert.is(asset.status, 200);
    assert.match(asset.headers['content-type'] ?? '', /^text\/javascript/);
    assert.is((await ask('/explorer/missing.js')).status, 404);
  });

  Http('points history (v1.3): the document, from/to in every season, the no-history answer, 400s', async () => {
    const file = fileText(`v1/address/${A}/points/history.json`);
    assert.is(
      file,
      JSON.stringify({
        seasons: [
          {
            season: 1,
            asOf: '2025-11-05',
            days: [
              { date: '2025-11-03', points: 5, totalPoints: 5, rank: 1 },
              { date: '2025-11-04', points: 0, totalPoints: 5, rank: 1 },
              { date: '2025-11-05', points: 0, totalPoints: 5, rank: 1 },
            ],
          },
          {
            season: 2,
            asOf: '2025-11-20',
            days: [
              { date: '2025-11-18', points: 4, totalPoints: 4, rank: 1 },
              { date: '2025-11-19', points: 0, totalPoints: 4, rank: 1 },
              { date: '2025-11-20', points: 6, totalPoints: 10, rank: 1 },
            ],
          },
        ],
      }),
    );
    const whole = await ask(`/v1/address/${A.toUpperCase().replace('0X', '0x')}/points/history`);
    assert.is(whole.status, 200);
    assert.is(whole.text, file);
    assert.is(whole.headers['content-type'], 'application/json; charset=utf-8');
    const days = (answer: Answer) => answer.json.seasons.map((s: any) => [s.season, s.days.map((d: any) => d.date)]);
    // Season 1 has no day in range: it keeps its entry, with days [].
    const late = await ask(`${pointsHistory}?from=2025-11-19`);
    assert.equal(days(late), [
      [1, []],
      [2, ['2025-11-19', '2025-11-20']],
    ]);
    assert.is(
      late.text,
      '{"seasons":[{"season":1,"asOf":"2025-11-05","days":[]},{"season":2,"asOf":"2025-11-20","days":[{"date":"2025-11-19","points":0,"totalPoints":4,"rank":1},{"date":"2025-11-20","points":6,"totalPoints":10,"rank":1}]}]}',
    );
    assert.equal(days(await ask(`${pointsHistory}?to=2025-11-04`)), [
      [1, ['2025-11-03', '2025-11-04']],
      [2, []],
    ]);
    assert.equal(days(await ask(`${pointsHistory}?from=2025-11-05&to=2025-11-18`)), [
      [1, ['2025-11-05']],
      [2, ['2025-11-18']],
    ]);
    assert.equal(days(await ask(`${pointsHistory}?from=2025-12-01&utm_source=x`)), [
      [1, []],
      [2, []],
    ]);
    for (const path of [
      `/v1/address/${UNKNOWN}/points/history`,
      `/v1/address/${UNKNOWN.toUpperCase().replace('0X', '0x')}/points/history?from=2025-11-01&to=2025-11-02`,
    ]) {
      const none = await ask(path);
      assert.is(none.status, 200, path);
      assert.is(none.text, '{"seasons":[]}', path);
    }
    for (const path of [
      '/v1/address/0x12/points/history',
      `${pointsHistory}?from=2025-1-01`,
      `${pointsHistory}?to=2025-02-30`,
      `${pointsHistory}?from=2025-11-01&from=2025-11-02`,
      `${pointsHistory}?from=2025-11-19&to=2025-11-18`,
      `/v1/address/${UNKNOWN}/points/history?to=x`,
    ]) {
      const answer = await ask(path);
      assert.is(answer.status, 400, path);
      assert.equal(Object.keys(answer.json), ['error'], path);
      assert.is(answer.headers['cache-control'], 'no-cache', path);
    }
    for (const path of [`${pointsHistory}/`, `${pointsHistory}.json`, `/v1/address/${A}/points/history/x`])
      assert.is((await ask(path)).status, 404, path);
  });

  Http('from/to filter the days, keep asOf, and keep every digit of the balances', async () => {
    const both = await ask(`${daily}?from=2025-11-17&to=2025-11-18`);
    assert.is(both.status, 200);
    assert.equal(
      both.json.days.map((d: any) => d.date),
      ['2025-11-17', '2025-11-18'],
    );
    assert.is(both.json.asOf, '2025-11-20');
    assert.match(both.text, '"balance":123456.789012345678901234,');
    assert.equal(
      (await ask(`${daily}?from=2025-11-19`)).json.days.map((d: any) => d.date),
      ['2025-11-19', '2025-11-20'],
    );
    assert.equal(
      (await ask(`${daily}?to=2025-10-31`)).json.days.map((d: any) => d.date),
      ['2025-10-30', '2025-10-31'],
    );
    // Across the end of a month.
    const across = await ask(`${daily}?from=2025-10-31&to=2025-11-01`);
    assert.equal(
      across.json.days.map((d: any) => [d.date, d.totalValueUsd]),
      [
        ['2025-10-31', 4.95],
        ['2025-11-01', 5.05],
      ],
    );
    assert.equal((await ask(`${daily}?from=2025-12-01`)).json, { asOf: '2025-11-20', days: [] });
    assert.equal((await ask(`${daily}?to=2025-10-31&utm_source=x&from_=1`)).json.days.length, 2);
  });

  Http('well-formed addresses without files get the no-history answers with 200', async () => {
    assert.equal((await ask(`/v1/address/${UNKNOWN}/portfolio`)).json, {});
    const days = await ask(`/v1/address/${UNKNOWN.toUpperCase().replace('0X', '0x')}/portfolio/daily?from=2025-11-01`);
    assert.is(days.status, 200);
    assert.equal(days.json, { asOf: '2025-11-20', days: [] });
    assert.equal((await ask(`/v1/address/${SUB}/portfolio`)).json, {});
  });

  Http('400s: bad address, bad or repeated or inverted from/to, malformed or unknown season', async () => {
    const cases = [
      '/v1/address/0x123/portfolio',
      `/v1/address/${A}g/portfolio/daily`,
      `/v1/address/0x${'z'.repeat(40)}/portfolio`,
      `/v1/address/0x12/points`,
      `${daily}?from=2025-1-01`,
      `${daily}?to=20251101`,
      `${daily}?from=2025-02-30`,
      `${daily}?from=2025-11-01&from=2025-11-02`,
      `${daily}?to=2025-11-01&to=2025-11-01`,
      `${daily}?from=2025-11-19&to=2025-11-18`,
      `${daily}?from=`,
      '/v1/leaderboard/s0',
      '/v1/leaderboard/s01',
      '/v1/leaderboard/1',
      '/v1/leaderboard/S1',
      '/v1/leaderboard/s9',
      '/v1/leaderboard/',
      '/v1/leaderboard',
    ];
    for (const path of cases) {
      const answer = await ask(path);
      assert.is(answer.status, 400, path);
      assert.equal(Object.keys(answer.json), ['error'], path);
      assert.is(answer.headers['cache-control'], 'no-cache', path);
    }
    assert.match((await ask('/v1/leaderboard/s9')).json.error, 'not a known season');
    assert.match((await ask(`${daily}?from=2025-11-19&to=2025-11-18`)).json.error, 'later than');
  });

  Http('404 for any other path; 405 with Allow for other methods; each with an error body', async () => {
    for (const path of [
      '/v1',
      '/v2/leaderboard/s1',
      `/v1/address/${A}`,
      `/v1/address/${A}/portfolio/weekly`,
      '/v1/leaderboard/s1/x',
      '/_snapshot/meta.json',
      `${portfolio}.json`,
      `${portfolio}/`,
    ]) {
      const answer = await ask(path);
      assert.is(answer.status, 404, path);
      assert.type(answer.json.error, 'string', path);
    }
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const answer = await ask(portfolio, { method });
      assert.is(answer.status, 405, method);
      assert.is(answer.headers.allow, 'GET, HEAD, OPTIONS');
      assert.type(answer.json.error, 'string');
    }
  });

  Http('OPTIONS answers 204 with the CORS headers, echoing the requested headers', async () => {
    const preflight = await ask(daily, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://app.example',
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'X-Api-Key, content-type',
      },
    });
    assert.is(preflight.status, 204);
    assert.is(preflight.text, '');
    assert.is(preflight.headers['access-control-allow-origin'], '*');
    assert.is(preflight.headers['access-control-allow-methods'], 'GET, HEAD, OPTIONS');
    assert.is(preflight.headers['access-control-allow-headers'], 'X-Api-Key, content-type');
    assert.is(preflight.headers['access-control-max-age'], '86400');
    const plain = await ask('/anything', { method: 'OPTIONS' });
    assert.is(plain.status, 204);
    assert.is(plain.headers['access-control-allow-headers'], undefined);
  });

  Http('every response carries content type, CORS, an ETag and Cache-Control', async () => {
    const requests = [
      [portfolio, 'GET'],
      [daily, 'GET'],
      [`${daily}?from=2025-11-17`, 'GET'],
      ['/v1/leaderboard/s1', 'HEAD'],
      [`/v1/address/${UNKNOWN}/portfolio`, 'GET'],
      ['/v1/leaderboard/s9', 'GET'],
      ['/nope', 'GET'],
      [portfolio, 'POST'],
      [portfolio, 'OPTIONS'],
    ] as const;
    for (const [path, method] of requests) {
      const answer = await ask(path, { method });
      assert.is(answer.headers['content-type'], 'application/json; charset=utf-8', `${method} ${path}`);
      assert.is(answer.headers['access-control-allow-origin'], '*', `${method} ${path}`);
      assert.match(answer.headers.etag ?? '', /^W\/"[^"]+"$/, `${method} ${path}`);
      assert.ok(answer.headers['cache-control'], `${method} ${path}`);
    }
    assert.is((await ask(portfolio)).headers['cache-control'], 'public, max-age=300, must-revalidate');
  });

  Http('conditional requests follow RFC 9110: lists, weak comparison, *, and If-Modified-Since only without If-None-Match', async () => {
    for (const path of [
      portfolio,
      daily,
      `${daily}?from=2025-11-17`,
      '/v1/leaderboard/s1',
      `/v1/address/${UNKNOWN}/portfolio/daily`,
      pointsHistory,
      `${pointsHistory}?from=2025-11-19`,
      `/v1/address/${UNKNOWN}/points/history`,
    ]) {
      const first = await ask(path);
      const etag = first.headers.etag!;
      const modified = first.headers['last-modified']!;
      const conditional = async (headers: Record<string, string>) => ask(path, { headers });
      const listed = await conditional({ 'If-None-Match': `"zzz", ${etag}` });
      assert.is(listed.status, 304, `${path} list`);
      assert.is(listed.text, '');
      assert.is(listed.headers.etag, etag);
      assert.is(listed.headers['cache-control'], 'public, max-age=300, must-revalidate');
      assert.is((await conditional({ 'If-None-Match': etag.replace(/^W\//, '') })).status, 304, `${path} strong form`);
      assert.is((await conditional({ 'If-None-Match': '*' })).status, 304, `${path} *`);
      assert.is((await conditional({ 'If-None-Match': '"zzz"' })).status, 200, `${path} other tag`);
      assert.is((await conditional({ 'If-Modified-Since': modified })).status, 304, `${path} IMS`);
      assert.is((await conditional({ 'If-Modified-Since': 'Thu, 01 Jan 1970 00:00:00 GMT' })).status, 200, `${path} old IMS`);
      assert.is((await conditional({ 'If-None-Match': '"zzz"', 'If-Modified-Since': modified })).status, 200, `${path} INM wins`);
      // What `fetch` adds to every conditional request: the origin still evaluates the precondition.
      const uncached = await conditional({ 'If-None-Match': etag, 'Cache-Control': 'no-cache', Pragma: 'no-cache' });
      assert.is(uncached.status, 304, `${path} no-cache`);
      assert.is(uncached.headers.etag, etag, `${path} no-cache`);
      const sinceUncached = await conditional({ 'If-Modified-Since': modified, 'Cache-Control': 'max-age=0, no-cache' });
      assert.is(sinceUncached.status, 304, `${path} IMS no-cache`);
      assert.is((await conditional({ 'If-None-Match': '"zzz"', 'Cache-Control': 'no-cache' })).status, 200, `${path} other tag no-cache`);
      // Node's own fetch (undici), which sends Cache-Control and Pragma no-cache with If-None-Match.
      const fetched = await fetch(`${base}${path}`, { headers: { 'If-None-Match': etag } });
      assert.is(fetched.status, 304, `${path} fetch`);
      assert.is(fetched.headers.get('etag'), etag, `${path} fetch`);
      assert.is(await fetched.text(), '', `${path} fetch`);
    }
    // A different range is a different representation.
    const one = await ask(`${daily}?from=2025-11-17`);
    assert.is((await ask(`${daily}?from=2025-11-18`, { headers: { 'If-None-Match': one.headers.etag! } })).status, 200);
    const history = await ask(`${pointsHistory}?from=2025-11-19`);
    assert.is((await ask(`${pointsHistory}?from=2025-11-20`, { headers: { 'If-None-Match': history.headers.etag! } })).status, 200);
    assert.is((await ask(pointsHistory, { headers: { 'If-None-Match': history.headers.etag! } })).status, 200);
  });

  Http('Range is ignored: the whole document, 200', async () => {
    for (const range of ['bytes=0-9', 'bytes=999999-', 'bytes=5-2']) {
      const answer = await ask(portfolio, { headers: { Range: range } });
      assert.is(answer.status, 200, range);
      assert.is(answer.text, fileText(`v1/address/${A}/portfolio.json`), range);
    }
  });

  Http('gzip when accepted (filtered and unfiltered, errors too), identity otherwise; HEAD has the headers and no body', async () => {
    for (const path of [
      daily,
      `${daily}?to=2025-11-18`,
      '/v1/leaderboard/s2',
      '/v1/leaderboard/s9',
      `/v1/address/${UNKNOWN}/portfolio`,
      pointsHistory,
      `${pointsHistory}?to=2025-11-18`,
    ]) {
      const gzipped = await ask(path, { headers: { 'Accept-Encoding': 'gzip' } });
      assert.is(gzipped.headers['content-encoding'], 'gzip', path);
      const plain = await ask(path, { headers: { 'Accept-Encoding': 'identity' } });
      assert.is(plain.headers['content-encoding'], undefined, path);
      assert.is(gzipped.text, plain.text, path);
    }
    const head = await ask(daily, { method: 'HEAD', headers: { 'Accept-Encoding': 'identity' } });
    assert.is(head.status, 200);
    assert.is(head.text, '');
    assert.is(Number(head.headers['content-length']), fileText(`v1/address/${A}/portfolio/daily.json`).length);
  });

  Http('150 clients that go away mid-answer leave the host answering', async () => {
    const url = new URL(base);
    await Promise.all(
      Array.from(
        { length: 150 },
        () =>
          new Promise<void>((resolve) => {
            const socket = net.connect(Number(url.port), url.hostname, () => {
              socket.write(`GET ${daily} HTTP/1.1\r\nHost: x\r\n\r\n`);
              setTimeout(() => socket.destroy(), 1);
            });
            socket.on('error', () => {});
            socket.on('close', () => resolve());
          }),
      ),
    );
    const answer = await Promise.race([ask(portfolio), new Promise<null>((resolve) => setTimeout(() => resolve(null), 10_000))]);
    assert.is(answer?.status, 200, 'no answer within 10 s');
  });

  Http('hostile paths get a 4xx, never a file from outside the tree', async () => {
    fs.writeFileSync(path.join(path.dirname(built.out), 'secret.json'), '{"secret":true}');
    for (const path of [
      '/../secret.json',
      '/v1/../../secret.json',
      '/v1/address/..%2f..%2f..%2fsecret/portfolio',
      '/v1/%2e%2e/%2e%2e/secret.json',
      '/v1/address/%2e%2e/portfolio',
      '/v1/address/%/portfolio',
      '/v1/address/%E0%A4%A/portfolio',
      '/v1/leaderboard/s1%00',
      `/v1/address/${A}%00/portfolio`,
      '/explorer/..%2f..%2fsecret.json',
      `/v1/${'a'.repeat(5_000)}`,
    ]) {
      const answer = await ask(path);
      assert.ok(answer.status >= 400 && answer.status < 500, `${path.slice(0, 60)} answered ${answer.status}`);
      assert.not.match(answer.text, 'secret":true');
    }
    assert.is((await ask(portfolio)).status, 200);
  });

  // Raw bytes over a socket: a client library always sends Host.
  Http('no Host over HTTP/1.1 is a 400 with the JSON error; HTTP/1.0 needs none', async () => {
    const missing = await rawExchange(base, 'GET /v1/seasons HTTP/1.1\r\nConnection: close\r\n\r\n');
    assert.match(missing, /^HTTP\/1\.1 400 Bad Request\r\n/);
    assert.match(missing, /\r\ncontent-type: application\/json; charset=utf-8\r\n/i);
    assert.match(missing, /\r\naccess-control-allow-origin: \*\r\n/i);
    assert.ok(missing.endsWith('\r\n\r\n{"error":"The request is not well-formed: Missing host header."}'), missing);
    assert.match(await rawExchange(base, 'GET /v1/seasons HTTP/1.0\r\n\r\n'), /^HTTP\/1\.1 200 OK\r\n/);
  });

  Http("odd targets, Hosts, methods, codings and expectations: the Node host's answers, with the JSON error, everywhere", async () => {
    const raw = async (head: string, body = '') => {
      const bytes = Buffer.from(`${head}\r\nConnection: close\r\n\r\n${body}`, head.includes('\u00e9') ? 'utf8' : 'latin1');
      const { answers } = await exchange(base, { bytes, methods: [head.split(' ')[0]!], label: head });
      assert.is(answers.length, 1, head);
      const answer = answers[0]!;
      assert.is(answer.headers['content-type'], 'application/json; charset=utf-8', head);
      assert.is(answer.headers['access-control-allow-origin'], '*', head);
      assert.ok(answer.headers.etag && answer.headers['cache-control'], head);
      return { status: answer.status, text: answer.body.toString('utf8'), headers: answer.headers };
    };
    const seasons = fileText('v1/seasons.json');
    const absolute = await raw('GET http://127.0.0.1/v1/seasons HTTP/1.1\r\nHost: 127.0.0.1');
    assert.is(absolute.status, 200);
    assert.is(absolute.text, seasons);
    assert.is((await raw('GET http://example.com/v1/seasons HTTP/1.1\r\nHost: x')).text, seasons);
    // A Host that URL parsing takes but workerd's own parser does not (it answered a bare 500): the Node host's 200.
    for (const odd of ['*', 'a*b', '!', '$', "x'y", '(x)', '{x}', '"x"', 'a,b;c=d', '*:8080']) {
      const answer = await raw(`GET /v1/seasons HTTP/1.1\r\nHost: ${odd}`);
      assert.is(answer.status, 200, `Host: ${odd}`);
      assert.is(answer.text, seasons, `Host: ${odd}`);
    }
    const refused = (reason: string) => JSON.stringify({ error: `The request is not well-formed: ${reason}.` });
    for (const [head, reason] of [
      ['OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1', 'Invalid URL'],
      ['GET * HTTP/1.1\r\nHost: 127.0.0.1', 'Invalid URL'],
      ['GET /v1/seasons HTTP/1.1\r\nHost: a b', 'Invalid URL'],
      ['GET /v1/seasons HTTP/1.1\r\nHost: [', 'Invalid URL'],
      ['GET /v1/seasons HTTP/1.1\r\nHost: user:pass@host', 'Invalid host header'],
      ['GET /v1/seasons HTTP/1.1\r\nHost: h\u00e9', 'Invalid host header'],
      ['GET /v1/seasons HTTP/1.1\r\nHost: 127.0.0.1:', 'Invalid host header'],
      ['GET /v1/seasons HTTP/1.1\r\nHost: ', 'Missing host header'],
      ['GET /v1\\seasons HTTP/1.1\r\nHost: x', 'Backslash in request path'],
    ]) {
      const answer = await raw(head!);
      assert.is(answer.status, 400, head);
      assert.is(answer.text, refused(reason!), head);
      assert.is(answer.headers['cache-control'], 'no-cache', head);
    }
    assert.is((await raw('GET /v1/seasons HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked', '0\r\n\r\n')).text, seasons);
    for (const refusal of ['identity;q=0', '*;q=0', 'br;q=1, identity;q=0']) {
      const answer = await raw(`GET /v1/seasons HTTP/1.1\r\nHost: x\r\nAccept-Encoding: ${refusal}`);
      assert.is(answer.status, 200, refusal);
      assert.is(answer.headers['content-encoding'], undefined, refusal);
      assert.is(answer.text, seasons, refusal);
    }
    for (const method of ['M-SEARCH', 'LINK', 'UNLINK', 'PURGE', 'PROPFIND']) {
      const answer = await raw(`${method} /v1/seasons HTTP/1.1\r\nHost: x`);
      assert.is(answer.status, 405, method);
      assert.is(answer.headers.allow, 'GET, HEAD, OPTIONS', method);
      assert.is(answer.text, JSON.stringify({ error: `The method ${method} is not allowed; use GET, HEAD or OPTIONS.` }), method);
    }
    const expectation = await raw('GET /v1/seasons HTTP/1.1\r\nHost: x\r\nExpect: garbage');
    assert.is(expectation.status, 417);
    const refusedExpectation = 'The server meets no expectation but 100-continue, not "garbage"; send the request without Expect.';
    assert.is(expectation.text, JSON.stringify({ error: refusedExpectation }));
  });

  Http.run();
}

const Same = suite('every runtime answers alike');

Same('status, body and the interface headers are the same on Node, in workerd, and from a published bucket', () => {
  const node = answers.get('node')!;
  assert.ok(node.size > 50);
  for (const [runtime, other] of [...answers].filter(([runtime]) => runtime !== 'node'))
    for (const [key, expected] of node) {
      const actual = other.get(key);
      assert.ok(actual, `${runtime} was not asked ${key}`);
      assert.is(actual!.status, expected.status, `${runtime}: ${key}`);
      assert.is(actual!.text, expected.text, `${runtime}: ${key}`);
      for (const header of [
        'content-type',
        'access-control-allow-origin',
        'access-control-allow-methods',
        'access-control-allow-headers',
        'access-control-max-age',
        'allow',
        'etag',
        'cache-control',
        'last-modified',
        'content-encoding',
      ]) {
        assert.is(actual!.headers[header], expected.headers[header], `${runtime}: ${key}: ${header}`);
      }
    }
});

Same.run();

const Deploy = suite('Worker deployment configuration');

Deploy('wrangler.toml deploys the Worker that workerd runs here, with the same R2 binding and compatibility date', async () => {
  const { COMPATIBILITY_DATE } = await import('../preview/workerd.ts');
  const toml = fs.readFileSync(path.join(import.meta.dirname, '..', 'wrangler.toml'), 'utf8');
  assert.match(toml, /^main = "server\/worker.ts"$/m);
  assert.match(toml, new RegExp(`^compatibility_date = "${COMPATIBILITY_DATE}"$`, 'm'));
  assert.match(toml, /\[\[r2_buckets\]\]\nbinding = "TREE"\n/);
  assert.ok(fs.existsSync(path.join(import.meta.dirname, '..', 'server', 'worker.ts')));
});

Deploy.run();
