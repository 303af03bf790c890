/** Publishing without the preview server: host configuration files and the upload manifest. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { A, B, PINNED_NOW as now, balance, fileHash, tempDir, writeInputs } from '../helpers/fixtures.ts';
import { buildSnapshot } from '../../build/index.ts';
import { resolveBuildConfig } from '../../build/config.ts';
import { generateDataset } from '../../data/generate.ts';

async function buildWithManifest(input: string, root: string, name: string) {
  const manifest = path.join(root, `${name}.sha256`);
  const out = path.join(root, name);
  await buildSnapshot(resolveBuildConfig({ input, out, now, manifest, progress: 'quiet', allowEmpty: true }));
  const lines = fs.readFileSync(manifest, 'utf8').trim().split('\n');
  return { out, hashes: new Map(lines.map((line) => [line.slice(66), line.slice(0, 64)])) };
}

test('Netlify / Cloudflare Pages: _headers and _redirects cover every /v1 path', async () => {
  const root = tempDir();
  const input = await writeInputs(path.join(root, 'in'), {
    seasons: [
      { season: 1, as_of: null },
      { season: 2, as_of: null },
    ],
  });
  const out = path.join(root, 'public');
  await buildSnapshot(resolveBuildConfig({ input, out, now, progress: 'quiet', allowEmpty: true }));
  const headers = fs.readFileSync(path.join(out, '_headers'), 'utf8');
  assert.match(
    headers,
    '/v1/*\n  Content-Type: application/json; charset=utf-8\n  Access-Control-Allow-Origin: *\n  Cache-Control: public, max-age=300, must-revalidate',
  );
  const redirects = fs.readFileSync(path.join(out, '_redirects'), 'utf8');
  assert.match(redirects, '/v1/address/:address/portfolio/daily  /v1/address/:address/portfolio/daily.json  200');
  assert.match(redirects, '/v1/address/:address/portfolio        /v1/address/:address/portfolio.json        200');
  assert.match(redirects, '/v1/address/:address/points           /v1/address/:address/points.json           200');
  assert.match(redirects, '/v1/address/:address/points/history   /v1/address/:address/points/history.json   200');
  // The more specific rule first: rules are tried in order.
  assert.ok(redirects.indexOf('/points/history ') < redirects.indexOf('/points '));
  assert.match(redirects, '/v1/seasons                           /v1/seasons.json                           200');
  assert.match(redirects, '/v1/leaderboard/s2  /v1/leaderboard/s2.json  200');
});

test('the CloudFront function rewrites to the .json objects and answers what the handler answers before reading a file', async () => {
  const root = tempDir();
  const input = await writeInputs(path.join(root, 'in'), {
    seasons: [
      { season: 1, as_of: null },
      { season: 12, as_of: null },
    ],
  });
  const out = path.join(root, 'public');
  await buildSnapshot(resolveBuildConfig({ input, out, now, progress: 'quiet', allowEmpty: true }));
  const context = vm.createContext({});
  vm.runInContext(fs.readFileSync(path.join(out, '_snapshot/cloudfront/viewer-request.js'), 'utf8'), context);
  type Query = Record<string, { value: string; multiValue?: { value: string }[] }>;
  const handle = (uri: string, method = 'GET', querystring: Query = {}, headers: Record<string, { value: string }> = {}) =>
    context.handler({ request: { method, uri, querystring, headers } });
  const upper = `0x${'A'.repeat(40)}`;
  assert.is(handle(`/v1/address/${upper}/portfolio`).uri, `/v1/address/${upper.toLowerCase()}/portfolio.json`);
  assert.is(handle(`/v1/address/${A}/portfolio/daily`).uri, `/v1/address/${A}/portfolio/daily.json`);
  assert.is(handle(`/v1/address/${A}/points`).uri, `/v1/address/${A}/points.json`);
  assert.is(handle(`/v1/address/${upper}/points/history`).uri, `/v1/address/${upper.toLowerCase()}/points/history.json`);
  assert.is(
    handle(`/v1/address/${A}/points/history`, 'GET', { from: { value: '2025-11-01' } }).uri,
    `/v1/address/${A}/points/history.json`,
  );
  assert.is(handle('/v1/leaderboard/s12').uri, '/v1/leaderboard/s12.json');
  assert.is(handle('/v1/seasons').uri, '/v1/seasons.json');
  assert.is(handle('/v1/openapi.json').uri, '/v1/openapi.json');
  assert.is(handle('/').uri, '/index.html');
  const day = (value: string) => ({ value });
  const accepted = handle(`/v1/address/${A}/portfolio/daily`, 'GET', { from: day('2025-11-01'), to: day('2025-11-02') });
  assert.is(accepted.uri, `/v1/address/${A}/portfolio/daily.json`);
  for (const [uri, query] of [
    ['/v1/address/0x12/portfolio', {}],
    ['/v1/leaderboard/s0', {}],
    ['/v1/leaderboard', {}],
    ['/v1/leaderboard/s2', {}],
    [`/v1/address/${A}/portfolio/daily`, { from: day('2025-02-30') }],
    [`/v1/address/${A}/portfolio/daily`, { to: day('20251101') }],
    [`/v1/address/${A}/portfolio/daily`, { from: day('2025-11-03'), to: day('2025-11-02') }],
    [`/v1/address/${A}/portfolio/daily`, { from: { value: '2025-11-01', multiValue: [day('2025-11-01'), day('2025-11-02')] } }],
    ['/v1/address/0x12/points/history', {}],
    [`/v1/address/${A}/points/history`, { to: day('2025-13-01') }],
    [`/v1/address/${A}/points/history`, { from: day('2025-11-03'), to: day('2025-11-02') }],
  ] as [string, Query][]) {
    const answer = handle(uri, 'GET', query);
    assert.is(answer.statusCode, 400, `${uri} ${JSON.stringify(query)}`);
    assert.equal(Object.keys(JSON.parse(answer.body.data)), ['error']);
    assert.is(answer.headers['access-control-allow-origin'].value, '*');
  }
  assert.is(handle('/v1/other').statusCode, 404);
  const post = handle(`/v1/address/${A}/portfolio`, 'POST');
  assert.is(post.statusCode, 405);
  assert.is(post.headers.allow.value, 'GET, HEAD, OPTIONS');
  const preflight = handle(`/v1/address/${A}/portfolio`, 'OPTIONS', {}, { 'access-control-request-headers': { value: 'X-Api-Key' } });
  assert.is(preflight.statusCode, 204);
  assert.is(preflight.headers['access-control-allow-headers'].value, 'X-Api-Key');
  assert.is(preflight.headers['access-control-allow-methods'].value, 'GET, HEAD, OPTIONS');
});

test('the manifest: same input, same hashes; a changed input changes exactly the affected files', async () => {
  const root = tempDir();
  const rows = [
    balance({ address: A, block_number: 1, timestamp: 1763500000, balance: '1' }),
    balance({ address: B, block_number: 2, timestamp: 1763500000, balance: '2' }),
  ];
  const first = await buildWithManifest(await writeInputs(path.join(root, 'in1'), { balances: rows }), root, 'one');
  const again = await buildWithManifest(await writeInputs(path.join(root, 'in1'), { balances: rows }), root, 'two');
  assert.equal([...again.hashes].sort(), [...first.hashes].sort());
  for (const [file, hash] of first.hashes) {
    assert.is(fileHash(path.join(first.out, file)), hash, file);
  }
  const changed = await buildWithManifest(
    await writeInputs(path.join(root, 'in2'), { balances: [rows[0]!, { ...rows[1]!, balance: '3' }] }),
    root,
    'three',
  );
  const differing = [...first.hashes.keys()].filter((file) => changed.hashes.get(file) !== first.hashes.get(file)).sort();
  assert.equal(differing, [`v1/address/${B}/portfolio.json`, `v1/address/${B}/portfolio/daily.json`]);
  assert.is(changed.hashes.size, first.hashes.size);
});

test('the manifest lists wallets in address order, the same bytes from two builds of many batches', async () => {
  const root = tempDir();
  const input = path.join(root, 'in');
  // About 60,000 snapshots: several batches, finished by the two document threads in either order.
  await generateDataset({
    outDir: input,
    wallets: 1500,
    seed: 5,
    startDate: '2025-06-01',
    days: 120,
    seasonOneEnd: '2025-08-01',
    rowsPerWallet: 40,
  });
  const manifests = [];
  for (const name of ['one', 'two']) {
    const manifest = path.join(root, `${name}.sha256`);
    await buildSnapshot(
      resolveBuildConfig({ input, out: path.join(root, name), now, manifest, threads: 2, progress: 'quiet', allowEmpty: true }),
    );
    manifests.push(fs.readFileSync(manifest, 'utf8'));
  }
  assert.is(manifests[1], manifests[0]);
  const wallets = manifests[0]!
    .split('\n')
    .map((line) => line.slice(66))
    .filter((file) => file.startsWith('v1/address/') && file.endsWith('/portfolio.json'));
  assert.ok(wallets.length > 1000);
  assert.equal(wallets, [...wallets].sort());
});

test.run();
