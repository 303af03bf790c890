/**
 * The Node host under what only a real process shows: requests Node's parser refuses, clients that
 * pipeline without reading, abort or hold connections open, a process out of file descriptors,
 * files vanishing and trees swapped under load. Servers run as real `wallet-snapshot serve`
 * processes where memory or descriptors are measured.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { A, B, balance, build, tempDir, writeInputs, PINNED_NOW, type Built } from '../helpers/fixtures.ts';
import { rawExchange, request } from '../helpers/http.ts';
import { withHost } from '../helpers/hosts.ts';
import { CLI, ROOT } from '../helpers/process.ts';
import { filterDaily, indexDailyRows } from '../../tree/daily-rows.ts';
import { FileTreeStore } from '../../server/file-store.ts';
import { buildSnapshot } from '../../build/index.ts';
import { resolveBuildConfig } from '../../build/config.ts';

let built: Built;
const daily = `/v1/address/${A}/portfolio/daily`;

const Node = suite('Node host');

Node.before(async () => {
  built = await build({
    balances: [
      balance({ address: A, block_number: 1, balance: '123456789012345678901234' }),
      balance({ address: B, block_number: 2, balance: '5' }),
    ],
    seasons: [{ season: 1, as_of: null }],
  });
});

/** `wallet-snapshot serve` as a child process, with an optional descriptor limit. */
async function serveProcess(dir: string, fileLimit?: number): Promise<{ url: string; child: ChildProcess; rss(): number; stop(): void }> {
  const command =
    fileLimit === undefined
      ? [process.execPath, CLI, 'serve', '--dir', dir, '--port', '0']
      : ['/bin/sh', '-c', `ulimit -n ${fileLimit} && exec "$0" "$@"`, process.execPath, CLI, 'serve', '--dir', dir, '--port', '0'];
  const child = spawn(command[0]!, command.slice(1), { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let errors = '';
  child.stderr!.on('data', (data) => (errors += data));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (data) => {
      out += data;
      const match = /at (http:\/\/\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${errors}`)));
  });
  const rss = () => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) * 1024;
  return { url, child, rss, stop: () => child.kill('SIGKILL') };
}

Node('requests the parser refuses, a missing Host and CONNECT get the JSON error and the common headers', async () => {
  await withHost('node', built.out, async (base) => {
    const cases = [
      [
        `GET /v1/address/${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
        '431 Request Header Fields Too Large',
        'The request line and headers are larger than the server accepts (16 KB).',
      ],
      ['GARBAGE\r\n\r\n', '400 Bad Request', 'The request is not well-formed HTTP.'],
      [`GET ${daily} HTTP/1.1\r\nConnection: close\r\n\r\n`, '400 Bad Request', 'The request is not well-formed: Missing host header.'],
      [
        'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
        '405 Method Not Allowed',
        'The method CONNECT is not allowed; use GET, HEAD or OPTIONS.',
      ],
    ] as const;
    for (const [bytes, status, error] of cases) {
      const answer = await rawExchange(base, bytes);
      const [head, body] = answer.split('\r\n\r\n') as [string, string];
      assert.ok(head.toLowerCase().startsWith(`http/1.1 ${status.toLowerCase()}\r\n`), head);
      for (const header of [
        'content-type: application/json; charset=utf-8',
        'access-control-allow-origin: *',
        'cache-control: no-cache',
        'etag: w/"',
      ]) {
        assert.match(head.toLowerCase(), header, `${status}: ${header}`);
      }
      assert.equal(JSON.parse(body), { error });
    }
    // HTTP/1.0 needs no Host.
    assert.match(await rawExchange(base, `GET ${daily} HTTP/1.0\r\n\r\n`), /^HTTP\/1.1 200 OK/);
    assert.is((await request(base, daily)).status, 200);
  });
});

Node('a pipelining client that reads gets every answer in order', async () => {
  await withHost('node', built.out, async (base) => {
    const paths = Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? daily : `/v1/leaderboard/s1?n=${i}`));
    const answer = await rawExchange(
      base,
      paths.map((p, i) => `GET ${p} HTTP/1.1\r\nHost: x\r\n${i === paths.length - 1 ? 'Connection: close\r\n' : ''}\r\n`).join(''),
    );
    assert.is(answer.match(/HTTP\/1.1 200 OK/g)?.length, 200);
  });
});

Node('a client that pipelines without reading does not grow the server, which keeps answering others', async () => {
  const server = await serveProcess(built.out);
  try {
    await request(server.url, daily);
    const before = server.rss();
    const url = new URL(server.url);
    const socket = net.connect(Number(url.port), url.hostname);
    socket.pause();
    const one = `GET ${daily} HTTP/1.1\r\nHost: x\r\n\r\n`;
    const started = Date.now();
    let sent = 0;
    // Write until the server stops reading (the kernel's buffers fill), at most 50,000 requests or 4 s.
    await new Promise<void>((resolve) => {
      const write = () => {
        while (sent < 50_000 && Date.now() - started < 4_000) {
          sent++;
          if (!socket.write(one)) return void socket.once('drain', write);
        }
        resolve();
      };
      socket.on('connect', write);
      setTimeout(resolve, 4_000);
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const grown = server.rss() - before;
    assert.ok(grown < 100 * 2 ** 20, `the server grew by ${Math.round(grown / 2 ** 20)} MB for ${sent} unread requests`);
    assert.is((await request(server.url, daily)).status, 200);
    socket.destroy();
  } finally {
    server.stop();
  }
});

Node('clients that abort mid-answer do not stop the server', async () => {
  await withHost('node', built.out, async (base) => {
    const url = new URL(base);
    await Promise.all(
      Array.from(
        { length: 100 },
        (_, i) =>
          new Promise<void>((resolve) => {
            const socket = net.connect(Number(url.port), url.hostname, () => {
              socket.write(`GET ${i % 2 ? daily : `${daily}?from=2025-11-01`} HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n`);
              setTimeout(() => socket.destroy(), i % 5);
            });
            socket.on('error', () => {});
            socket.on('close', () => resolve());
          }),
      ),
    );
    assert.is((await request(base, daily)).status, 200);
  });
});

Node('out of file descriptors (ulimit -n 256, 300 idle connections): the server stays up and answers again', async () => {
  const server = await serveProcess(built.out, 256);
  const url = new URL(server.url);
  const idle: net.Socket[] = [];
  try {
    for (let i = 0; i < 300; i++) {
      const socket = net.connect(Number(url.port), url.hostname);
      socket.on('error', () => {});
      idle.push(socket);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    // A request on one of the accepted connections: 200, or 503 when the file cannot be opened.
    const answer = await rawExchange(server.url, `GET ${daily} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`).catch(() => '');
    if (answer) assert.match(answer, /^HTTP\/1.1 (200 OK|503 Service Unavailable)/);
    for (const socket of idle) socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.is(server.child.exitCode, null, 'the server exited');
    assert.is((await request(server.url, daily)).status, 200);
  } finally {
    for (const socket of idle) socket.destroy();
    server.stop();
  }
});

Node('a file that vanishes after its version was opened is no answer, not a crash; one open file gives size and bytes', async () => {
  const root = tempDir();
  fs.cpSync(built.out, path.join(root, 'tree'), { recursive: true, dereference: true });
  const store = new FileTreeStore(path.join(root, 'tree'));
  const version = await store.open();
  const file = `v1/address/${A}/portfolio/daily.json`;
  const bytes = (await version.read(file))!.bytes;
  assert.is(Buffer.from(bytes).toString(), fs.readFileSync(path.join(built.out, file), 'utf8'));
  fs.rmSync(path.join(root, 'tree', 'v1', 'address', A), { recursive: true });
  assert.is(await version.read(file), null);
});

Node('a tree rebuilt again and again under load: every answer complete, its ETag its own, none failed', async () => {
  const root = tempDir();
  const out = path.join(root, 'public');
  const inputs: string[] = [];
  for (const k of [0, 1]) {
    inputs.push(
      await writeInputs(path.join(root, `in${k}`), {
        balances: Array.from({ length: 30 }, (_, i) => balance({ address: A, block_number: i + 1, balance: String((i + 1) * (k + 1)) })),
        seasons: [{ season: 1, as_of: null }],
      }),
    );
  }
  await buildSnapshot(resolveBuildConfig({ input: inputs[0], out, now: PINNED_NOW, progress: 'quiet' }));
  await withHost('node', out, async (base) => {
    let running = true;
    const failures: string[] = [];
    let answered = 0;
    const load = Array.from({ length: 8 }, async () => {
      while (running) {
        const answer = await request(base, `/v1/address/${A}/portfolio`, { headers: { 'Accept-Encoding': 'identity' } });
        answered++;
        const digest = crypto.createHash('sha256').update(answer.text).digest('hex').slice(0, 32);
        if (answer.status !== 200) failures.push(`${answer.status} ${answer.text}`);
        else if (answer.headers.etag !== `W/"${digest}"`) failures.push(`ETag ${answer.headers.etag} for a body whose digest is ${digest}`);
        else if (Object.keys(answer.json).length === 0) failures.push('an empty history: the tree was missing');
      }
    });
    for (let rebuild = 1; rebuild <= 6; rebuild++) {
      await buildSnapshot(resolveBuildConfig({ input: inputs[rebuild % 2], out, now: PINNED_NOW, progress: 'quiet' }));
    }
    running = false;
    await Promise.all(load);
    assert.ok(answered > 50, `only ${answered} answers`);
    assert.equal(failures.slice(0, 5), []);
  });
});

Node('the text filter equals filtering the parsed document, across a year boundary', () => {
  const text = fs.readFileSync(path.join(built.out, `v1/address/${A}/portfolio/daily.json`));
  const parsed = JSON.parse(text.toString());
  const row = (date: string) =>
    `{"date":"${date}","totalValueUsd":1.5,"positions":[{"token":"uty","chainId":1,"balance":1.5,"usdPerToken":1,"valueUsd":1.5}]}`;
  const yearEnd = Buffer.from(
    `{"asOf":"2025-01-02","days":[${['2024-12-30', '2024-12-31', '2025-01-01', '2025-01-02'].map(row).join(',')}]}`,
  );
  assert.equal([...indexDailyRows(yearEnd).dates], [20241230, 20241231, 20250101, 20250102]);
  const ranges: [string | null, string | null][] = [
    [null, null],
    ['2024-12-31', '2025-01-01'],
    ['2025-01-01', null],
    [null, '2024-12-31'],
    ['2024-12-29', '2024-12-29'],
    ['2025-01-03', null],
    ['2024-12-30', '2025-01-02'],
    ['2025-11-17', '2025-11-19'],
    ['2025-11-20', '2025-11-20'],
    ['2026-01-01', null],
  ];
  for (const document of [text, yearEnd]) {
    const whole = JSON.parse(document.toString());
    for (const [from, to] of ranges) {
      const expected = {
        ...whole,
        days: whole.days.filter((d: any) => (from === null || d.date >= from) && (to === null || d.date <= to)),
      };
      assert.equal(JSON.parse(Buffer.from(filterDaily(document, from, to)).toString()), expected, `${from}..${to}`);
    }
  }
  assert.ok(parsed.days.length > 0);
  assert.is(Buffer.from(filterDaily(Buffer.from('{"asOf":null,"days":[]}'), '2025-01-01', null)).toString(), '{"asOf":null,"days":[]}');
});

Node.run();
