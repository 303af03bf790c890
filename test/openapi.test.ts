/** The OpenAPI 3.1 description: generated from the zod schemas, and true of every response. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { A, balance, build, buildReusingThreads, type Built, PINNED_NOW, tempDir } from './helpers/fixtures.ts';
import { request, withServer } from './helpers/http.ts';
import { ROOT } from './helpers/process.ts';
import { API_VERSION, ENDPOINTS } from '../schemas/endpoints.ts';

type OpenApi = {
  openapi: string;
  info: { version: string };
  paths: Record<string, { get: { responses: Record<string, { content: { 'application/json': { schema: object } } }> } }>;
  components: { schemas: Record<string, object> };
};

/** A validator of each (path template, status) response, with $refs into components resolved. */
function responseValidator(document: OpenApi) {
  const ajv = new Ajv2020.default({ strict: false, allErrors: true });
  ajv.addSchema({ $id: 'openapi.json', components: document.components });
  /** The validation errors of `body` as the (path, status) response, or null when it conforms. */
  const errorsOf = (template: string, status: number, body: unknown): string | null => {
    const response = document.paths[template]?.get.responses[String(status)];
    if (!response) return `${template} documents no ${status} response`;
    const schema = JSON.parse(
      JSON.stringify(response.content['application/json'].schema).replaceAll('"#/components', '"openapi.json#/components'),
    );
    const validate = ajv.compile(schema);
    return validate(body) ? null : `${template} ${status}: ${ajv.errorsText(validate.errors)}`;
  };
  const check = (template: string, status: number, body: unknown) => {
    const errors = errorsOf(template, status, body);
    assert.ok(errors === null, errors ?? '');
  };
  return Object.assign(check, { errorsOf });
}

test("the document is OpenAPI 3.1 at the table's version, its paths the endpoint table's, served at /v1/openapi.json", async () => {
  const built = await build({}, { allowEmpty: true });
  await withServer(built.out, async (base) => {
    const answer = await request(base, '/v1/openapi.json');
    assert.is(answer.status, 200);
    assert.is(answer.json.openapi, '3.1.0');
    assert.is(answer.json.info.version, API_VERSION);
    assert.equal(
      Object.keys(answer.json.paths),
      Object.values(ENDPOINTS).map((endpoint) => endpoint.path),
    );
    const parameters = answer.json.paths['/v1/address/{address}/points/history'].get.parameters.map(
      (one: { name: string; in: string }) => `${one.in} ${one.name}`,
    );
    assert.equal(parameters, ['path address', 'query from', 'query to']);
  });
});

test('every response of the sample snapshot, and every error, conforms to the document', async () => {
  const out = path.join(tempDir(), 'public');
  await buildReusingThreads({ input: path.join(ROOT, 'data/sample'), out, now: PINNED_NOW, progress: 'quiet' });
  const document = JSON.parse(fs.readFileSync(path.join(out, 'v1/openapi.json'), 'utf8')) as OpenApi;
  const check = responseValidator(document);
  await withServer(out, async (base) => {
    let checked = 0;
    for (const address of fs.readdirSync(path.join(out, 'v1/address'))) {
      check('/v1/address/{address}/portfolio', 200, (await request(base, `/v1/address/${address}/portfolio`)).json);
      check('/v1/address/{address}/portfolio/daily', 200, (await request(base, `/v1/address/${address}/portfolio/daily`)).json);
      check(
        '/v1/address/{address}/portfolio/daily',
        200,
        (await request(base, `/v1/address/${address}/portfolio/daily?from=2025-09-01&to=2025-09-30`)).json,
      );
      checked += 3;
    }
    for (const season of [1, 2, 3]) check('/v1/leaderboard/{season}', 200, (await request(base, `/v1/leaderboard/s${season}`)).json);
    check('/v1/address/{address}/portfolio', 200, (await request(base, `/v1/address/0x${'9'.repeat(40)}/portfolio`)).json);
    check('/v1/address/{address}/portfolio/daily', 200, (await request(base, `/v1/address/0x${'9'.repeat(40)}/portfolio/daily`)).json);
    const errors: [string, string, number][] = [
      ['/v1/address/{address}/portfolio', '/v1/address/0x1/portfolio', 400],
      ['/v1/address/{address}/portfolio/daily', `/v1/address/0x${'9'.repeat(40)}/portfolio/daily?from=x`, 400],
      ['/v1/leaderboard/{season}', '/v1/leaderboard/s99', 400],
      ['/v1/leaderboard/{season}', '/v1/leaderboard/x', 400],
      ['/v1/leaderboard/{season}', '/v1/leaderboard/s1/x', 404],
    ];
    for (const [template, url, status] of errors) {
      const answer = await request(base, url);
      assert.is(answer.status, status, url);
      check(template, status, answer.json);
    }
    const notAllowed = await request(base, '/v1/leaderboard/s1', { method: 'POST' });
    check('/v1/leaderboard/{season}', 405, notAllowed.json);
    assert.ok(checked > 100);
  });
  // The v1.2 documents, read from the tree (the files the servers answer with).
  const treeFile = (file: string) => JSON.parse(fs.readFileSync(path.join(out, file), 'utf8'));
  let standings = 0;
  for (const address of fs.readdirSync(path.join(out, 'v1/address'))) {
    if (!fs.existsSync(path.join(out, 'v1/address', address, 'points.json'))) continue;
    check('/v1/address/{address}/points', 200, treeFile(`v1/address/${address}/points.json`));
    check('/v1/address/{address}/points/history', 200, treeFile(`v1/address/${address}/points/history.json`));
    standings++;
  }
  assert.ok(standings >= 40, `${standings} points files`);
  check('/v1/address/{address}/points', 200, treeFile('_snapshot/no-history/points.json'));
  check('/v1/address/{address}/points/history', 200, treeFile('_snapshot/no-history/points-history.json'));
  assert.ok(
    check.errorsOf('/v1/address/{address}/points/history', 200, {
      seasons: [{ season: 1, asOf: '2025-11-05', days: [{ date: '2025-11-05', points: 1, totalPoints: 1, rank: 0 }] }],
    }),
  );
  check('/v1/seasons', 200, treeFile('v1/seasons.json'));
  assert.ok(check.errorsOf('/v1/seasons', 200, { seasons: [{ season: 1, asOf: null, frozen: 'yes', totalParticipants: 0 }] }));
  assert.ok(
    check.errorsOf('/v1/address/{address}/points', 200, {
      seasons: [{ season: 1, asOf: null, rank: 1, totalPoints: 1, dailyRate: 0, totalParticipants: 1 }],
    }),
  );
});

test('the validator catches a document that breaks the description', async () => {
  const built: Built = await build({ balances: [balance({ address: A, block_number: 1, balance: '1' })] });
  const check = responseValidator(built.json('v1/openapi.json'));
  const broken = built.json(`v1/address/${A}/portfolio/daily.json`);
  broken.days[0].positions[0].token = 'btc';
  assert.match(
    check.errorsOf('/v1/address/{address}/portfolio/daily', 200, broken) ?? '',
    'token must be equal to one of the allowed values',
  );
});

test.run();
