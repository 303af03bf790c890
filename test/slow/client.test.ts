/**
 * `wallet-snapshot/client` where apps run it besides Node (test/client.test.ts): in headless
 * Chromium on a page of another origin than the API (CORS, the browser's own fetch), against the
 * Worker in workerd, and inside a Worker itself (workerd's fetch). Each result is compared with
 * the document the host answers to the same request; in each, a host that never answers gives the
 * timeout's ApiError, and an abort the platform's AbortError.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import path from 'node:path';
import { build as esbuild } from 'esbuild';
import { Miniflare } from 'miniflare';
import type { Browser } from 'playwright-core';
import { ApiError, createClient } from '../../client/index.ts';
import { COMPATIBILITY_DATE } from '../../preview/workerd.ts';
import { startPreviewServer, type RunningServer } from '../../server/index.ts';
import { A, SUB, balance, build, unix, type Built } from '../helpers/fixtures.ts';
import { launchBrowser, openPage } from '../helpers/browser.ts';
import { startHost, type Host } from '../helpers/hosts.ts';

const ny = (local: string) => unix(`${local}-05:00`);
const CLIENT = path.join(import.meta.dirname, '..', '..', 'client', 'index.ts');

/**
 * What an app does with every function: the results, and the errors as the app sees them (a
 * malformed address, an unknown season, and a host that does not answer).
 */
const APP = `import { ApiError, createClient } from ${JSON.stringify(CLIENT)};
import { validateDocument } from ${JSON.stringify(CLIENT.replace('index.ts', 'validation.ts'))};
export async function runClient(baseUrl, address, deadUrl, hangUrl) {
  const api = createClient({ baseUrl });
  const failure = (error) =>
    error instanceof ApiError
      ? { name: error.name, kind: error.kind, status: error.status, error: error.error, message: error.message }
      : { other: String(error), name: error?.name };
  const leaving = new AbortController();
  const aborted = createClient({ baseUrl: hangUrl }).seasons({ signal: leaving.signal }).catch(failure);
  setTimeout(() => leaving.abort(), 100);
  return {
    portfolio: await api.portfolio(address.toUpperCase().replace('0X', '0x')),
    daily: await api.daily(address, { from: new Date('2025-11-17T12:00:00Z'), to: '2025-11-18' }),
    leaderboard: await api.leaderboard(2),
    points: await api.points(address),
    pointsHistory: await api.pointsHistory(address, { from: '2025-11-05' }),
    seasons: await api.seasons(),
    again: await api.seasons(),
    badAddress: await api.points('0x123').catch(failure),
    unknownSeason: await api.leaderboard(9).catch(failure),
    noAnswer: await createClient({ baseUrl: deadUrl, backoff: () => 0 }).seasons().catch(failure),
    timedOut: await createClient({ baseUrl: hangUrl, timeout: 300 }).seasons().catch(failure),
    aborted: await aborted,
    inverted: await api.daily(address, { from: '2025-11-18', to: '2025-11-17' }).catch(failure),
    validated: await createClient({ baseUrl, validate: validateDocument }).leaderboard(2),
    // In a bundle the package's files are not beside the client: the error says what to do instead.
    validateTrue: await createClient({ baseUrl, validate: true }).seasons().then(() => 'resolved', (error) => error.message),
  };
}
`;

let built: Built;
let api: RunningServer;

test.before(async () => {
  built = await build({
    balances: [
      balance({ address: A, block_number: 0, timestamp: ny('2025-10-30T10:00:00'), balance: '5000000000000000000' }),
      balance({ address: SUB, block_number: 2, timestamp: ny('2025-11-18T10:00:00'), token: 'venueBUsdc', balance: '2500000' }),
    ],
    venue_b_accounts: [{ chain_id: 1, account: SUB, owner: A }],
    prices: [{ chain_id: 1, token: 'uty', date: '2025-10-01', usd_price: 0.99 }],
    seasons: [
      { season: 1, as_of: '2025-11-05' },
      { season: 2, as_of: null },
    ],
    points: [
      { season: 1, date: '2025-11-03', address: A, points: 5 },
      { season: 2, date: '2025-11-18', address: A, points: 4 },
    ],
  });
  api = await startPreviewServer({ dir: built.out, port: 0, host: '127.0.0.1' });
});
test.after(() => api.close());

/** An app's module bundled by esbuild (ESM, not minified), the client from its sources. */
function bundled(contents: string) {
  const stdin = { contents, resolveDir: import.meta.dirname, loader: 'js' } as const;
  return esbuild({ stdin, bundle: true, format: 'esm', write: false, logLevel: 'silent' });
}

/** A port nothing listens on. */
async function deadUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

/** A host that accepts every request and never answers (the app's timeout and abort are tried on it). */
let hanging: http.Server;
let hangUrl: string;
test.before(async () => {
  hanging = http.createServer(() => {});
  await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
  hangUrl = `http://127.0.0.1:${(hanging.address() as { port: number }).port}`;
});
test.after(async () => {
  hanging.closeAllConnections();
  await new Promise((resolve) => hanging.close(resolve));
});

/** The results an app got, compared with what the host answers to each request. */
async function assertResults(results: any, base: string, dead: string, bundled = false): Promise<void> {
  if (bundled) {
    assert.equal(results.validated, built.json('v1/leaderboard/s2.json'));
    assert.match(results.validateTrue, 'validate: true could not load the schemas beside the client');
    assert.match(results.validateTrue, "pass the validator itself: import { validateDocument } from 'wallet-snapshot/client/validation'");
  }
  const answer = async (url: string) => (await fetch(`${base}${url}`)).json();
  assert.equal(results.portfolio, await answer(`/v1/address/${A}/portfolio`));
  assert.equal(results.portfolio, built.json(`v1/address/${A}/portfolio.json`));
  assert.equal(results.daily, await answer(`/v1/address/${A}/portfolio/daily?from=2025-11-17&to=2025-11-18`));
  assert.equal(
    results.daily.days.map((day: any) => day.date),
    ['2025-11-17', '2025-11-18'],
  );
  assert.equal(results.leaderboard, built.json('v1/leaderboard/s2.json'));
  assert.equal(results.points, built.json(`v1/address/${A}/points.json`));
  assert.equal(results.pointsHistory, await answer(`/v1/address/${A}/points/history?from=2025-11-05`));
  assert.equal(results.seasons, built.json('v1/seasons.json'));
  assert.equal(results.again, results.seasons);
  const sentence = async (url: string) => (await answer(url)).error as string;
  const refusal = async (url: string) => ({
    name: 'ApiError',
    kind: 'http',
    status: 400,
    error: await sentence(url),
    message: `GET ${base}${url} answered 400: ${await sentence(url)}`,
  });
  assert.equal(results.badAddress, await refusal('/v1/address/0x123/points'));
  assert.equal(results.unknownSeason, await refusal('/v1/leaderboard/s9'));
  assert.equal([results.noAnswer.name, results.noAnswer.kind, results.noAnswer.status], ['ApiError', 'network', null]);
  assert.match(results.noAnswer.message, `GET ${dead}/v1/seasons got no answer (3 attempts): `);
  // A host that never answers: the timeout's ApiError, and an abort's AbortError at once.
  assert.equal(results.timedOut, {
    name: 'ApiError',
    kind: 'timeout',
    status: null,
    error: null,
    message: `GET ${hangUrl}/v1/seasons got no whole answer within 300 ms (the timeout)`,
  });
  assert.is(results.aborted.name, 'AbortError');
  assert.is(results.inverted.name, 'RangeError');
}

test("in Chromium, on a page of another origin: every function, the typed errors, the browser's fetch under CORS", async () => {
  const bundle = await bundled(APP);
  const page = http.createServer((req, res) => {
    if (req.url === '/app.js') {
      res.writeHead(200, { 'Content-Type': 'text/javascript' });
      return res.end(bundle.outputFiles[0]!.contents);
    }
    res.writeHead(200, { 'Content-Type': 'text/html' });
    const script = 'import { runClient } from "/app.js"; window.runClient = runClient;';
    res.end(`<!doctype html><title>app</title><script type="module">${script}</script>\n`);
  });
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  // localhost and 127.0.0.1 on two ports: two origins.
  const pageUrl = `http://localhost:${(page.address() as { port: number }).port}/`;
  let browser: Browser | null = null;
  try {
    browser = await launchBrowser();
    const { page: tab, errors, close } = await openPage(browser, { width: 800, height: 600 });
    try {
      await tab.goto(pageUrl);
      await tab.waitForFunction(() => 'runClient' in window);
      const dead = await deadUrl();
      const run = ([base, address, deadBase, hangBase]: readonly [string, string, string, string]) =>
        (window as any).runClient(base, address, deadBase, hangBase);
      const results = await tab.evaluate(run, [api.url, A, dead, hangUrl] as const);
      assert.is(new URL(pageUrl).origin === new URL(api.url).origin, false);
      await assertResults(results, api.url, dead, true);
      // The browser reports each failed request of the page on its console; nothing else went wrong.
      assert.equal(
        errors.filter((error) => !/Failed to load resource|net::ERR_CONNECTION_REFUSED/.test(error)),
        [],
      );
    } finally {
      await close();
    }
  } finally {
    await browser?.close();
    page.closeAllConnections();
    await new Promise((resolve) => page.close(resolve));
  }
});

test('against the Worker in workerd: every function, the typed errors, revalidation', async () => {
  const host: Host = await startHost('workerd', built.out);
  try {
    const sent: { ifNoneMatch: string | null; status: number }[] = [];
    const client = createClient({
      baseUrl: host.url,
      fetch: async (url, init) => {
        const response = await fetch(url, init);
        sent.push({ ifNoneMatch: init.headers['If-None-Match'] ?? null, status: response.status });
        return response;
      },
    });
    const dead = await deadUrl();
    const failure = (error: unknown) =>
      error instanceof ApiError
        ? { name: error.name, kind: error.kind, status: error.status, error: error.error, message: error.message }
        : { other: String(error), name: (error as Error).name };
    const leaving = new AbortController();
    const aborted = createClient({ baseUrl: hangUrl }).seasons({ signal: leaving.signal }).catch(failure);
    setTimeout(() => leaving.abort(), 100);
    const results = {
      portfolio: await client.portfolio(A.toUpperCase().replace('0X', '0x')),
      daily: await client.daily(A, { from: new Date('2025-11-17T12:00:00Z'), to: '2025-11-18' }),
      leaderboard: await client.leaderboard(2),
      points: await client.points(A),
      pointsHistory: await client.pointsHistory(A, { from: '2025-11-05' }),
      seasons: await client.seasons(),
      again: await client.seasons(),
      badAddress: await client.points('0x123').catch(failure),
      unknownSeason: await client.leaderboard(9).catch(failure),
      noAnswer: await createClient({ baseUrl: dead, backoff: () => 0 })
        .seasons()
        .catch(failure),
      timedOut: await createClient({ baseUrl: hangUrl, timeout: 300 }).seasons().catch(failure),
      aborted: await aborted,
      inverted: await client.daily(A, { from: '2025-11-18', to: '2025-11-17' }).catch(failure),
    };
    await assertResults(results, host.url, dead);
    // The second seasons() revalidated with the ETag the Worker gave (its answer: 304, or 200 to fetch's no-cache).
    assert.is(sent[6]!.ifNoneMatch, (await fetch(`${host.url}/v1/seasons`)).headers.get('etag'));
    assert.ok([200, 304].includes(sent[6]!.status), String(sent[6]!.status));
  } finally {
    await host.close();
  }
});

test("inside a Worker (workerd's own fetch), against the Node server: every function, the typed errors", async () => {
  const worker = `${APP}
export default {
  async fetch(request) {
    const { base, address, dead, hang } = await request.json();
    return Response.json(await runClient(base, address, dead, hang));
  },
};
`;
  const bundle = await bundled(worker);
  const miniflare = new Miniflare({ modules: true, script: bundle.outputFiles[0]!.text, compatibilityDate: COMPATIBILITY_DATE });
  try {
    const dead = await deadUrl();
    const body = JSON.stringify({ base: api.url, address: A, dead, hang: hangUrl });
    const answer = await miniflare.dispatchFetch('http://worker/', { method: 'POST', body });
    const text = await answer.text();
    assert.is(answer.status, 200, text);
    await assertResults(JSON.parse(text), api.url, dead, true);
  } finally {
    await miniflare.dispose();
  }
});

test.run();
