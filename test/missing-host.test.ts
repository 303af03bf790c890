/**
 * A request without Host (HTTP/1.1) gets section 5's JSON 400 on every runtime of `serve`; an
 * HTTP/1.0 request needs none. Raw bytes over a socket: a client library always sends Host.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { A, balance, build } from './helpers/fixtures.ts';
import { RUNTIMES, withHost } from './helpers/hosts.ts';
import { rawExchange } from './helpers/http.ts';

const built = await build({ balances: [balance({ address: A, block_number: 1, balance: '5' })], seasons: [{ season: 1, as_of: null }] });

for (const runtime of RUNTIMES) {
  test(`${runtime}: no Host over HTTP/1.1 is a 400 with the JSON error; HTTP/1.0 needs none`, async () => {
    await withHost(runtime, built.out, async (base) => {
      const missing = await rawExchange(base, 'GET /v1/seasons HTTP/1.1\r\nConnection: close\r\n\r\n');
      assert.match(missing, /^HTTP\/1\.1 400 Bad Request\r\n/);
      assert.match(missing, /\r\ncontent-type: application\/json; charset=utf-8\r\n/i);
      assert.match(missing, /\r\naccess-control-allow-origin: \*\r\n/i);
      assert.ok(missing.endsWith('\r\n\r\n{"error":"The request is not well-formed: Missing host header."}'), missing);
      assert.match(await rawExchange(base, 'GET /v1/seasons HTTP/1.0\r\n\r\n'), /^HTTP\/1\.1 200 OK\r\n/);
    });
  });
}

test.run();
