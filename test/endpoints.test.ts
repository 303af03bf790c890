/**
 * The endpoint table (schemas/endpoints.ts) is the one place an endpoint is declared: the client's
 * part of it (client/endpoints.ts) is what the table makes, and an endpoint added to a copy of the
 * table is answered by every runtime (the Node server and the Worker in workerd, over real HTTP),
 * listed in OpenAPI, in the 404 sentence and in the static hosts' files, and callable from the
 * client, with nothing else changed.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { build } from './helpers/fixtures.ts';
import { request } from './helpers/http.ts';
import { API_TABLES } from './helpers/api-tree.ts';
import { THROWAWAY_PATH, throwawayTable } from './helpers/throwaway-endpoint.ts';
import { CLIENT_ENDPOINTS_FILE, clientEndpointsText } from '../scripts/client-endpoints.ts';
import { clientRoutes, ENDPOINTS, noSuchEndpointMessage, shownPath } from '../schemas/endpoints.ts';
import { openApiDocument } from '../schemas/openapi.ts';
import { cloudFrontViewerRequest, netlifyRedirects } from '../tree/cdn-files.ts';
import { manifestLine } from '../tree/manifest-line.ts';
import { manifestListFile, manifestSummaryFile } from '../tree/manifest-files.ts';
import { startPreviewServer } from '../server/index.ts';
import { startWorkerd } from '../preview/workerd.ts';
import { ApiError, createClient } from '../client/index.ts';

const Table = suite('the endpoint table');

Table('client/endpoints.ts is what the table makes (npm run endpoints writes it)', async () => {
  assert.is(fs.readFileSync(CLIENT_ENDPOINTS_FILE, 'utf8'), await clientEndpointsText());
});

Table('the 404 sentence lists a wallet’s paths, then a season’s, then the rest, each in the table’s order', () => {
  const shown = Object.values(ENDPOINTS).map((endpoint) => shownPath(endpoint));
  const ordered = [
    ...shown.filter((path) => path.includes('{address}')),
    ...shown.filter((path) => !path.includes('{address}') && path.includes('s{N}')),
    ...shown.filter((path) => !path.includes('{address}') && !path.includes('s{N}')),
  ];
  assert.is(
    noSuchEndpointMessage(ENDPOINTS),
    `No such endpoint; the endpoints are ${ordered.slice(0, -1).join(', ')} and ${ordered.at(-1)}.`,
  );
});

const Added = suite('an endpoint added to a copy of the table');
const { endpoints, unregister } = throwawayTable();
/** The 404 sentence with the throwaway, among the season's paths (after the product's). */
const ADDED_404 = noSuchEndpointMessage(endpoints);
let out = '';
/** The throwaway's document of each season, as its file holds it. */
const counts = new Map<number, string>();

/**
 * The tree of the HTTP suites, with the throwaway's files added as a build that had its writer
 * would write them: one per known season, each in the build's record (so that the Worker's
 * loading, which takes a tree only as its build wrote it, takes them).
 */
Added.before(async () => {
  const seasonPaths = Object.values(endpoints)
    .map((endpoint) => shownPath(endpoint))
    .filter((path) => path.includes('s{N}') && !path.includes('{address}'));
  assert.is(seasonPaths.at(-1), '/v1/seasons/s{N}/throwaway.json');
  assert.match(ADDED_404, `${seasonPaths.join(', ')}`);
  assert.is.not(ADDED_404, noSuchEndpointMessage(ENDPOINTS));
  out = (await build(API_TABLES)).out;
  const seasons = JSON.parse(fs.readFileSync(path.join(out, 'v1/seasons.json'), 'utf8')) as {
    seasons: { season: number; totalParticipants: number }[];
  };
  const shard = { index: 1, count: 1 };
  let lines = '';
  for (const { season, totalParticipants } of seasons.seasons) {
    const file = `v1/seasons/s${season}/throwaway.json`;
    const text = JSON.stringify({ season, participants: totalParticipants });
    fs.mkdirSync(path.join(out, path.dirname(file)), { recursive: true });
    fs.writeFileSync(path.join(out, file), text);
    lines += manifestLine(crypto.createHash('sha256').update(text).digest('hex'), file);
    counts.set(season, text);
  }
  const list = path.join(out, manifestListFile(shard));
  fs.appendFileSync(list, lines);
  const summaryFile = path.join(out, manifestSummaryFile(shard));
  const summary = JSON.parse(fs.readFileSync(summaryFile, 'utf8'));
  summary.sha256 = crypto.createHash('sha256').update(fs.readFileSync(list)).digest('hex');
  summary.files += counts.size;
  fs.writeFileSync(summaryFile, JSON.stringify(summary));
  assert.equal([...counts.keys()], [1, 2]);
});

Added.after(() => unregister());

const WORKER_ENTRY = path.join(import.meta.dirname, 'helpers', 'throwaway-worker.ts');
const RUNTIMES = {
  node: () => startPreviewServer({ dir: out, port: 0, host: '127.0.0.1', endpoints }),
  workerd: () => startWorkerd({ dir: out, port: 0, host: '127.0.0.1', variant: { entry: WORKER_ENTRY } }),
};

for (const [runtime, start] of Object.entries(RUNTIMES)) {
  Added(
    `answered by ${runtime}: the document of each known season, its 400s and the 404 sentence naming it; callable from the client`,
    async () => {
      const host = await start();
      try {
        const count = await request(host.url, '/v1/seasons/s2/throwaway.json');
        assert.is(count.status, 200);
        assert.is(count.text, counts.get(2));
        assert.is(count.headers['content-type'], 'application/json; charset=utf-8');
        const unknown = await request(host.url, '/v1/seasons/s9/throwaway.json');
        assert.equal([unknown.status, unknown.json], [400, { error: 'The season "s9" is not a known season.' }]);
        const malformed = await request(host.url, '/v1/seasons/two/throwaway.json');
        assert.equal(
          [malformed.status, malformed.json],
          [400, { error: 'The season "two" is not s followed by a season number, e.g. s1.' }],
        );
        const none = await request(host.url, '/v1/nothing');
        assert.equal([none.status, none.json], [404, { error: ADDED_404 }]);
        // The other endpoints are the product's, unchanged.
        assert.is((await request(host.url, '/v1/seasons')).text, fs.readFileSync(path.join(out, 'v1/seasons.json'), 'utf8'));

        const client = createClient({ baseUrl: host.url, endpoints: clientRoutes(endpoints) });
        assert.equal(await client.throwaway!(1), JSON.parse(counts.get(1)!));
        assert.equal(await client.seasons!(), JSON.parse(fs.readFileSync(path.join(out, 'v1/seasons.json'), 'utf8')));
        const refused = await client.throwaway!(9).catch((error: unknown) => error);
        assert.instance(refused, ApiError);
        assert.equal([(refused as ApiError).status, (refused as ApiError).error], [400, 'The season "s9" is not a known season.']);
      } finally {
        await host.close();
      }
    },
  );
}

Added('the product, without it, does not answer it', async () => {
  const host = await startPreviewServer({ dir: out, port: 0, host: '127.0.0.1' });
  try {
    const answer = await request(host.url, '/v1/seasons/s2/throwaway.json');
    assert.equal([answer.status, answer.json], [404, { error: noSuchEndpointMessage(ENDPOINTS) }]);
  } finally {
    await host.close();
  }
});

Added('listed in OpenAPI: its path, its season parameter, its 200 by its schema and the season’s 400', () => {
  const document = openApiDocument(endpoints) as {
    paths: Record<string, { get: { operationId: string; parameters: { name: string }[]; responses: Record<string, unknown> } }>;
    components: { schemas: Record<string, unknown> };
  };
  assert.equal(Object.keys(document.paths), [...Object.values(ENDPOINTS).map((endpoint) => endpoint.path), THROWAWAY_PATH]);
  const get = document.paths[THROWAWAY_PATH]!.get;
  assert.is(get.operationId, 'getThrowaway');
  assert.equal(
    get.parameters.map((parameter) => parameter.name),
    ['season'],
  );
  assert.equal(get.responses['200'], {
    description: 'the document',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Throwaway' } } },
  });
  assert.equal(get.responses['400'], {
    description: 'malformed or unknown season',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  });
  assert.ok(document.components.schemas.Throwaway);
});

Added(
  'the static hosts: no rewrite for a path that is its file; the CloudFront function routes it, checks its season and names it in its 404',
  () => {
    assert.is(netlifyRedirects([1, 2], endpoints), netlifyRedirects([1, 2]));
    const context = vm.createContext({});
    vm.runInContext(cloudFrontViewerRequest([1, 2], endpoints), context);
    const handle = (uri: string) => context.handler({ request: { method: 'GET', uri, querystring: {}, headers: {} } });
    assert.is(handle('/v1/seasons/s2/throwaway.json').uri, '/v1/seasons/s2/throwaway.json');
    const unknown = handle('/v1/seasons/s3/throwaway.json');
    assert.equal([unknown.statusCode, JSON.parse(unknown.body.data)], [400, { error: 'The season "s3" is not a known season.' }]);
    assert.equal(JSON.parse(handle('/v1/nothing').body.data), { error: ADDED_404 });
    // The product's endpoints are routed as before.
    assert.is(handle('/v1/leaderboard/s1').uri, '/v1/leaderboard/s1.json');
    assert.is(handle('/v1/seasons').uri, '/v1/seasons.json');
  },
);

Table.run();
Added.run();
