/** SPEC section 5: the preview server over real HTTP on a free loopback port. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { A, B, SUB, balance, build, tempDir, unix, writeInputs, type Built, PINNED_NOW } from './helpers/fixtures.ts';
import { request, withServer } from './helpers/http.ts';
import { buildSnapshot } from '../build/index.ts';
import { resolveBuildConfig } from '../build/config.ts';
import { filterDaily, indexDailyRows } from '../server/filter-daily.ts';
import { DocumentCache } from '../server/document-cache.ts';

const ny = (local: string) => unix(`${local}-05:00`);
let built: Built;
const portfolio = `/v1/address/${A}/portfolio`;
const daily = `/v1/address/${A}/portfolio/daily`;
const fileText = (file: string) => fs.readFileSync(path.join(built.out, file), 'utf8');

const Server = suite('preview server');

Server.before(async () => {
  built = await build({
    balances: [
      balance({ address: A, block_number: 1, timestamp: ny('2025-11-16T10:00:00'), balance: '123456789012345678901234' }),
      balance({ address: SUB, block_number: 2, timestamp: ny('2025-11-18T10:00:00'), token: 'venueBUsdc', balance: '2500000' }),
    ],
    venue_b_accounts: [{ chain_id: 1, account: SUB, owner: A }],
    prices: [{ chain_id: 1, token: 'uty', date: '2025-11-01', usd_price: 1.01 }],
    seasons: [{ season: 1, as_of: '2025-11-05' }, { season: 2, as_of: null }],
    points: [{ season: 2, date: '2025-11-20', address: A, points: 10 }],
  });
});

Server('the three endpoints answer exactly the files; addresses in any case', async () => {
  await withServer(built.out, async (base) => {
    const history = await request(base, portfolio.replace(A, A.toUpperCase().replace('0X', '0x')));
    assert.is(history.status, 200);
    assert.is(history.text, fileText(`v1/address/${A}/portfolio.json`));
    assert.is((await request(base, daily)).text, fileText(`v1/address/${A}/portfolio/daily.json`));
    const season = await request(base, '/v1/leaderboard/s2');
    assert.is(season.text, fileText('v1/leaderboard/s2.json'));
    assert.is(season.json.entries[0].user, A);
  });
});

Server('from/to filter the days, keep asOf, and keep every digit of the balances', async () => {
  await withServer(built.out, async (base) => {
    const both = await request(base, `${daily}?from=2025-11-17&to=2025-11-18`);
    assert.is(both.status, 200);
    assert.equal(both.json.days.map((d: any) => d.date), ['2025-11-17', '2025-11-18']);
    assert.is(both.json.asOf, '2025-11-20');
    assert.match(both.text, '"balance":123456.789012345678901234,');
    assert.equal((await request(base, `${daily}?from=2025-11-19`)).json.days.map((d: any) => d.date), ['2025-11-19', '2025-11-20']);
    assert.equal((await request(base, `${daily}?to=2025-11-16`)).json.days.map((d: any) => d.date), ['2025-11-16']);
    assert.equal((await request(base, `${daily}?from=2025-12-01`)).json, { asOf: '2025-11-20', days: [] });
    assert.equal((await request(base, `${daily}?from=2025-01-01&to=2025-01-31`)).json, { asOf: '2025-11-20', days: [] });
    const ignored = await request(base, `${daily}?to=2025-11-16&utm_source=x&from_=1`);
    assert.equal(ignored.json.days.length, 1);
  });
});

Server('well-formed addresses without files get the no-history answers with 200', async () => {
  const unknown = '0x' + '9'.repeat(40);
  await withServer(built.out, async (base) => {
    const history = await request(base, `/v1/address/${unknown}/portfolio`);
    assert.is(history.status, 200);
    assert.equal(history.json, {});
    const days = await request(base, `/v1/address/${unknown}/portfolio/daily?from=2025-11-01`);
    assert.is(days.status, 200);
    assert.equal(days.json, { asOf: '2025-11-20', days: [] });
    // A venue-B sub-account is not a wallet of its own.
    assert.equal((await request(base, `/v1/address/${SUB}/portfolio`)).json, {});
  });
});

Server('400s: bad address, bad or repeated or inverted from/to, malformed or unknown season', async () => {
  await withServer(built.out, async (base) => {
    const cases = [
      '/v1/address/0x123/portfolio',
      `/v1/address/${A}g/portfolio/daily`,
      `/v1/address/0x${'z'.repeat(40)}/portfolio`,
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
    ];
    for (const path of cases) {
      const answer = await request(base, path);
      assert.is(answer.status, 400, path);
      assert.type(answer.json.error, 'string', path);
      assert.equal(Object.keys(answer.json), ['error'], path);
    }
    assert.match((await request(base, '/v1/leaderboard/s9')).json.error, 'not a known season');
    assert.match((await request(base, `${daily}?from=2025-11-19&to=2025-11-18`)).json.error, 'later than');
  });
});

Server('404 for any other path, 405 for other methods, each with an error body', async () => {
  await withServer(built.out, async (base) => {
    for (const path of ['/index.htm', '/explorer/missing.js', '/explorer/../v1/openapi.json', '/v1', '/v2/leaderboard/s1', `/v1/address/${A}`, `/v1/address/${A}/portfolio/weekly`, '/v1/leaderboard/s1/x', '/_snapshot/meta.json', `${portfolio}.json`]) {
      const answer = await request(base, path);
      assert.is(answer.status, 404, path);
      assert.type(answer.json.error, 'string');
    }
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
      const answer = await request(base, portfolio, { method });
      assert.is(answer.status, 405, method);
      assert.is(answer.headers.allow, 'GET, HEAD');
      assert.type(answer.json.error, 'string');
      // Compressed like every other response when the client accepts it.
      const gzipped = await request(base, portfolio, { method, headers: { 'Accept-Encoding': 'gzip' } });
      assert.is(gzipped.headers['content-encoding'], 'gzip', method);
      assert.equal(gzipped.json, answer.json);
    }
  });
});

Server('every response carries content type, CORS, a validator and Cache-Control', async () => {
  await withServer(built.out, async (base) => {
    for (const [path, method] of [[portfolio, 'GET'], [daily, 'GET'], [`/v1/address/0x${'9'.repeat(40)}/portfolio/daily`, 'GET'], [`${daily}?from=2025-11-17`, 'GET'], ['/v1/leaderboard/s1', 'HEAD'], [`/v1/address/0x${'9'.repeat(40)}/portfolio`, 'GET'], ['/v1/leaderboard/s9', 'GET'], ['/nope', 'GET'], [portfolio, 'POST']] as const) {
      const answer = await request(base, path, { method });
      assert.is(answer.headers['content-type'], 'application/json; charset=utf-8', path);
      assert.is(answer.headers['access-control-allow-origin'], '*', path);
      assert.ok(answer.headers.etag || answer.headers['last-modified'], `${path} has no validator`);
      assert.ok(answer.headers['cache-control'], `${path} has no Cache-Control`);
    }
  });
});

Server('conditional requests answer 304, for files and for filtered documents', async () => {
  await withServer(built.out, async (base) => {
    for (const path of [portfolio, daily, `${daily}?from=2025-11-17`, '/v1/leaderboard/s1']) {
      const first = await request(base, path);
      const again = await request(base, path, { headers: { 'If-None-Match': first.headers.etag! } });
      assert.is(again.status, 304, path);
      assert.is(again.text, '');
    }
  });
});

Server('gzip and brotli when accepted, filtered responses too; HEAD has no body', async () => {
  await withServer(built.out, async (base) => {
    for (const [encoding, header] of [['gzip', 'gzip'], ['br', 'br']]) {
      for (const path of [daily, `${daily}?to=2025-11-18`, '/v1/leaderboard/s2']) {
        const answer = await request(base, path, { headers: { 'Accept-Encoding': header! } });
        assert.is(answer.headers['content-encoding'], encoding, path);
        assert.ok(answer.json, path);
      }
    }
    const head = await request(base, daily, { method: 'HEAD' });
    assert.is(head.status, 200);
    assert.is(head.text, '');
    assert.is(Number(head.headers['content-length']), fileText(`v1/address/${A}/portfolio/daily.json`).length);
  });
});

Server('hostile paths get a 4xx, never a file from outside the tree, and the server stays up', async () => {
  fs.writeFileSync(path.join(path.dirname(built.out), 'secret.json'), '{"secret":true}');
  await withServer(built.out, async (base) => {
    const hostile = [
      '/../secret.json',
      '/v1/../../secret.json',
      '/v1/address/..%2f..%2f..%2fsecret/portfolio',
      '/v1/%2e%2e/%2e%2e/secret.json',
      '/v1/address/%2e%2e/portfolio',
      '/v1/address/%/portfolio',
      '/v1/address/%E0%A4%A/portfolio',
      '/v1/leaderboard/s1%00',
      `/v1/address/${A}%00/portfolio`,
      `/v1/${'a'.repeat(10_000)}`,
      '/v1/leaderboard/..%5c..%5csecret',
    ];
    for (const path of hostile) {
      const answer = await request(base, path);
      assert.ok(answer.status >= 400 && answer.status < 500, `${path} answered ${answer.status}`);
      assert.not.match(answer.text, 'secret":true');
    }
    assert.is((await request(base, portfolio)).status, 200);
  });
});

/** Raw bytes to the server and everything it answers until it closes the connection. */
function rawExchange(base: string, bytes: string): Promise<string> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname, () => socket.write(bytes));
    let answer = '';
    socket.on('data', (data) => (answer += data));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

Server('requests Node\'s HTTP parser refuses get the JSON error and the common headers too', async () => {
  await withServer(built.out, async (base) => {
    const cases = [
      [`GET /v1/address/${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, '431 Request Header Fields Too Large', 'The request line and headers are larger than the server accepts (16 KB).'],
      ['GARBAGE\r\n\r\n', '400 Bad Request', 'The request is not well-formed HTTP.'],
    ] as const;
    for (const [bytes, status, error] of cases) {
      const answer = await rawExchange(base, bytes);
      const [head, body] = answer.split('\r\n\r\n') as [string, string];
      assert.ok(head.startsWith(`HTTP/1.1 ${status}\r\n`), head);
      for (const header of ['Content-Type: application/json; charset=utf-8', 'Access-Control-Allow-Origin: *', 'Cache-Control: no-cache', 'ETag: "']) {
        assert.match(head, header);
      }
      assert.equal(JSON.parse(body), { error });
    }
    assert.is((await request(base, portfolio)).status, 200);
  });
});

Server('a tree rebuilt into the served folder is served at once', async () => {
  const root = tempDir();
  const out = path.join(root, 'public');
  const now = PINNED_NOW;
  const first = await writeInputs(path.join(root, 'one'), { balances: [balance({ address: A, block_number: 1, balance: '1' })], seasons: [{ season: 1, as_of: null }] });
  const second = await writeInputs(path.join(root, 'two'), { balances: [balance({ address: B, block_number: 1, balance: '1' })], seasons: [{ season: 1, as_of: null }, { season: 2, as_of: null }] });
  await buildSnapshot(resolveBuildConfig({ input: first, out, now, progress: 'quiet' }));
  await withServer(out, async (base) => {
    assert.ok(Object.keys((await request(base, portfolio)).json).length > 0);
    assert.ok((await request(base, `${daily}?to=2025-11-20`)).json.days.length > 0);
    assert.ok((await request(base, daily)).json.days.length > 0);
    assert.is((await request(base, '/v1/leaderboard/s2')).status, 400);
    await buildSnapshot(resolveBuildConfig({ input: second, out, now, progress: 'quiet' }));
    assert.equal((await request(base, portfolio)).json, {});
    assert.equal((await request(base, daily)).json, { asOf: '2025-11-20', days: [] });
    assert.equal((await request(base, `${daily}?to=2025-11-20`)).json, { asOf: '2025-11-20', days: [] });
    assert.ok(Object.keys((await request(base, `/v1/address/${B}/portfolio`)).json).length > 0);
    assert.is((await request(base, '/v1/leaderboard/s2')).status, 200);
  });
});

Server('the text filter equals filtering the parsed document', async () => {
  const text = fileText(`v1/address/${A}/portfolio/daily.json`);
  const parsed = JSON.parse(text);
  const ranges: [string | null, string | null][] = [[null, null], ['2025-11-16', null], [null, '2025-11-16'], ['2025-11-17', '2025-11-19'], ['2025-11-20', '2025-11-20'], ['2026-01-01', null], [null, '2025-01-01']];
  for (const [from, to] of ranges) {
    const expected = { ...parsed, days: parsed.days.filter((d: any) => (from === null || d.date >= from) && (to === null || d.date <= to)) };
    assert.equal(JSON.parse(Buffer.concat(filterDaily(Buffer.from(text), from, to)).toString()), expected, `${from}..${to}`);
  }
  assert.is(Buffer.concat(filterDaily(Buffer.from('{"asOf":null,"days":[]}'), '2025-01-01', null)).toString(), '{"asOf":null,"days":[]}');
});

Server('the text filter across a year boundary, and with the day rows indexed once', async () => {
  const row = (date: string) => `{"date":"${date}","totalValueUsd":1.5,"positions":[{"token":"uty","chainId":1,"balance":1.5,"usdPerToken":1,"valueUsd":1.5}]}`;
  const dates = ['2024-12-30', '2024-12-31', '2025-01-01', '2025-01-02'];
  const text = Buffer.from(`{"asOf":"2025-01-02","days":[${dates.map(row).join(',')}]}`);
  const parsed = JSON.parse(text.toString());
  const rows = indexDailyRows(text);
  assert.equal([...rows.dates], [20241230, 20241231, 20250101, 20250102]);
  const ranges: [string | null, string | null][] = [
    ['2024-12-31', '2025-01-01'], ['2025-01-01', null], [null, '2024-12-31'], ['2024-12-29', '2024-12-29'],
    ['2025-01-03', null], ['2024-12-30', '2025-01-02'], ['2024-12-25', '2024-12-30'], ['2025-01-02', '2025-01-31'],
  ];
  for (const [from, to] of ranges) {
    const expected = { ...parsed, days: parsed.days.filter((d: any) => (from === null || d.date >= from) && (to === null || d.date <= to)) };
    assert.equal(JSON.parse(Buffer.concat(filterDaily(text, from, to, rows)).toString()), expected, `${from}..${to}`);
  }
});

Server('the document cache hands back the same entry, so its row index is made once per file version', async () => {
  const cache = new DocumentCache();
  const file = path.join(built.out, `v1/address/${A}/portfolio/daily.json`);
  const first = (await cache.read(file))!;
  first.dailyRows = indexDailyRows(first.bytes);
  const again = (await cache.read(file))!;
  assert.is(again, first);
  assert.is(again.dailyRows, first.dailyRows);
});

Server.run();
