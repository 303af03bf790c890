/**
 * `serve --runtime workerd --from s3://...`: the Worker in workerd over what `publish` wrote to a
 * real S3-protocol server, following a second night's publish and a rollback, one whole version at
 * a time; and `serve --runtime workerd --dir` refusing a tree edited after its build in its own words.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { A, B, balance, build, unix, type Built } from '../helpers/fixtures.ts';
import { request } from '../helpers/http.ts';
import { CLI, ROOT, runCli, stopGroup } from '../helpers/process.ts';
import { BUCKET, S3_CREDENTIALS, startS3Server } from '../helpers/s3-server.ts';

const ny = (local: string) => unix(`${local}-05:00`);

async function nights(): Promise<[Built, Built]> {
  const tables = {
    balances: [
      // Months of history: from/to across the end of a month.
      balance({ address: A, block_number: 1, timestamp: ny('2025-08-10T10:00:00'), balance: '1000000000000000000' }),
      balance({ address: A, block_number: 2, timestamp: ny('2025-11-19T10:00:00'), balance: '2500000000000000000' }),
      balance({ address: B, block_number: 3, timestamp: ny('2025-10-01T10:00:00'), balance: '7' }),
    ],
    prices: [{ chain_id: 1, token: 'uty', date: '2025-08-01', usd_price: 2 }],
    seasons: [{ season: 1, as_of: null }],
    points: [{ season: 1, date: '2025-11-20', address: A, points: 3 }],
  };
  return [await build(tables, { now: '2025-11-21T17:00:00Z' }), await build(tables, { now: '2025-11-22T17:00:00Z' })];
}

test('the Worker serves the live version of a published bucket, and follows a new night and a rollback', async () => {
  const [first, second] = await nights();
  const s3 = await startS3Server();
  const env = { ...S3_CREDENTIALS };
  const to = `s3://${BUCKET}/prod`;
  const publish = async (tree: Built) => {
    // One price, months before these nights: no position has a price of its last day, which the
    // night's guard refuses (test/night-guard.test.ts); accepted here, where the subject is serving.
    const result = await runCli(
      ['publish', '--dir', tree.out, '--to', to, '--endpoint', s3.endpoint, '--progress', 'quiet', '--accept', 'unpriced'],
      { env },
    );
    assert.is(result.code, 0, result.stderr);
  };
  const daily = `/v1/address/${A}/portfolio/daily`;
  const file = (tree: Built) => fs.readFileSync(path.join(tree.out, `v1/address/${A}/portfolio/daily.json`), 'utf8');
  await publish(first);
  const child = spawn(process.execPath, [CLI, 'serve', '--runtime', 'workerd', '--from', to, '--endpoint', s3.endpoint, '--port', '0'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A process group of its own: stopped with its workerd (a SIGKILL to serve alone leaves workerd).
    detached: true,
  });
  try {
    let out = '';
    const base = await new Promise<string>((resolve, reject) => {
      let errors = '';
      child.stdout.on('data', (data) => {
        out += data;
        const match = /at (http:\/\/\S+)/.exec(out);
        if (match) resolve(match[1]!);
      });
      child.stderr.on('data', (data) => (errors += data));
      child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${errors}`)));
    });
    assert.is((await request(base, daily)).text, file(first));
    assert.is((await request(base, `${daily}?from=2025-08-31&to=2025-09-01`)).json.days.length, 2);
    // The next night, then a rollback: the Worker reads the pointer again within seconds.
    const answerBecomes = async (expected: string) => {
      const deadline = Date.now() + 20_000;
      let text = '';
      while (Date.now() < deadline) {
        text = (await request(base, daily)).text;
        if (text === expected) return;
        // Never a mix: each answer is one whole night's document.
        assert.ok([file(first), file(second)].includes(text), 'an answer that is neither night');
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      assert.is(text, expected);
    };
    await publish(second);
    await answerBecomes(file(second));
    const rolledBack = await runCli(['publish', '--rollback', '--to', to, '--endpoint', s3.endpoint], { env });
    assert.is(rolledBack.code, 0, rolledBack.stderr);
    await answerBecomes(file(first));
    // Each switch is logged: when, the version, the one it replaced, the copy's objects and time.
    const switches = out.split('\n').filter((line) => / serving version /.test(line));
    assert.is(switches.length, 3, out);
    assert.match(switches[0]!, /^\d{4}-\d{2}-\d{2}T[\d:.]+Z serving version \S+: copied \d+ objects in \d+\.\ds$/);
    assert.match(switches[1]!, / serving version \S+ \(was \S+\): copied \d+ objects in /);
    assert.match(switches[2]!, / \(was \S+\): copied 0 objects in /, 'a rollback copies nothing: its objects are here already');
  } finally {
    await stopGroup(child);
    await s3.close();
  }
});

test('serve --runtime workerd --dir of a tree edited after its build says what is wrong with the tree', async () => {
  const [first] = await nights();
  const copy = path.join(path.dirname(first.out), 'edited');
  fs.cpSync(fs.realpathSync(first.out), copy, { recursive: true });
  const daily = path.join(copy, `v1/address/${A}/portfolio/daily.json`);
  fs.writeFileSync(daily, fs.readFileSync(daily, 'utf8').replace('"balance":1', '"balance":2'));
  const refused = await runCli(['serve', '--runtime', 'workerd', '--dir', copy, '--port', '0']);
  assert.is(refused.code, 1, refused.stderr);
  assert.match(
    refused.stderr,
    new RegExp(
      `^wallet-snapshot: --dir \\S+ is not the tree its build wrote \\(1 problem; serve --runtime workerd serves a tree only as its build wrote it\\):\n  - v1/address/${A}/portfolio/daily.json: edited since the build \\(its bytes are not the ones the build wrote\\)\nrun wallet-snapshot verify`,
    ),
  );
  assert.not.match(refused.stderr, /cannot listen|nothing was sent|live version/);
});

test.run();
