/**
 * The edge in front of workerd (preview/workerd.ts) when its connection to workerd fails: a GET or
 * HEAD that failed before any byte of its answer is sent once more on a new connection; what still
 * fails is a 502 with the JSON error and the interface's headers, never a bare one. A plain TCP
 * server stands in for workerd, to fail on purpose: it drops the first connection as soon as a
 * request arrives on it, and answers on the next. The edge under load in front of the real
 * workerd: test/slow/workerd-edge-load.test.ts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import net from 'node:net';
import { startEdge } from '../preview/workerd.ts';
import { request } from './helpers/http.ts';

/** A stand-in for workerd that drops its first `drops` connections once a request arrives, then answers 200 "ok". */
async function flakyUpstream(drops: number): Promise<{ url: URL; connections: () => number; close(): Promise<void> }> {
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const answering = http.createServer((_req, res) => res.end('{"ok":true}'));
  const server = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    if (connections <= drops) return void socket.once('data', () => socket.resetAndDestroy());
    answering.emit('connection', socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}`),
    connections: () => connections,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

async function withEdge<T>(upstream: URL, body: (base: string) => Promise<T>): Promise<T> {
  const edge = await startEdge(upstream, { port: 0, host: '127.0.0.1' });
  try {
    return await body(`http://127.0.0.1:${(edge.address() as net.AddressInfo).port}`);
  } finally {
    await new Promise<void>((resolve) => {
      edge.close(() => resolve());
      edge.closeAllConnections();
    });
  }
}

test('a GET and a HEAD whose connection to workerd fails before an answer are sent again on a new one', async () => {
  for (const method of ['GET', 'HEAD']) {
    const upstream = await flakyUpstream(1);
    try {
      const answer = await withEdge(upstream.url, (base) => request(base, '/v1/seasons', { method }));
      assert.is(answer.status, 200, method);
      assert.is(answer.text, method === 'GET' ? '{"ok":true}' : '', method);
      assert.is(upstream.connections(), 2, method);
    } finally {
      await upstream.close();
    }
  }
});

test('once only, and never a request of another method: then a 502 with the JSON error and the interface headers', async () => {
  const upstream = await flakyUpstream(2);
  try {
    await withEdge(upstream.url, async (base) => {
      const answer = await request(base, '/v1/seasons');
      assert.is(answer.status, 502);
      assert.is(upstream.connections(), 2);
      assert.is(answer.headers['content-type'], 'application/json; charset=utf-8');
      assert.is(answer.headers['access-control-allow-origin'], '*');
      assert.is(answer.headers['cache-control'], 'no-cache');
      assert.is(answer.headers['retry-after'], '1');
      assert.match(answer.headers.etag ?? '', /^W\/"[^"]+"$/);
      assert.equal(answer.json, { error: 'The Worker could not be reached (ECONNRESET); retry shortly.' });
      // The third connection answers: the edge is not stuck.
      assert.is((await request(base, '/v1/seasons')).status, 200);
    });
  } finally {
    await upstream.close();
  }
  const refusing = await flakyUpstream(1);
  try {
    await withEdge(refusing.url, async (base) => {
      const answer = await request(base, '/v1/seasons', { method: 'DELETE' });
      assert.is(answer.status, 502);
      assert.is(refusing.connections(), 1);
      assert.is(answer.json.error, 'The Worker could not be reached (ECONNRESET); retry shortly.');
    });
  } finally {
    await refusing.close();
  }
});

test('workerd not listening at all: a JSON 502 after one more try', async () => {
  const closed = net.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const { port } = closed.address() as net.AddressInfo;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const answer = await withEdge(new URL(`http://127.0.0.1:${port}`), (base) => request(base, '/v1/seasons'));
  assert.is(answer.status, 502);
  assert.equal(answer.json, { error: 'The Worker could not be reached (ECONNREFUSED); retry shortly.' });
});

test.run();
