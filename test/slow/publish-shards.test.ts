/**
 * Sharded publishing against a real S3-protocol server on loopback (s3rver): each shard's tree is
 * staged into one version without touching the pointer, `--commit` makes the version live only
 * when every shard is staged, and the Worker (over `serve --from`) then answers exactly what it
 * answers for the same tree built whole, finding each wallet in its shard's pack. A night stays
 * within the request bound. Also: a tree edited after its build is never published.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { A, B, C, SUB, balance, tempDir, thrown, writeInputs, type Tables } from '../helpers/fixtures.ts';
import { runCli } from '../helpers/process.ts';
import {
  BUCKET,
  nightBound,
  S3_CREDENTIALS,
  startFaultyProxy,
  startS3Server,
  writeRequests,
  type RunningS3,
} from '../helpers/s3-server.ts';
import { buildSnapshot } from '../../build/index.ts';
import { resolveBuildConfig } from '../../build/config.ts';
import { UserError } from '../../core/errors.ts';
import { shardOf } from '../../core/shard.ts';
import { runPublish } from '../../publish/index.ts';
import { readPointer } from '../../publish/live-pointer.ts';
import { parseLocation, type Location } from '../../publish/location.ts';
import { createStorageClient } from '../../publish/storage.ts';
import { listVersions } from '../../publish/version-store.ts';
import { startWorkerdFromBucket } from '../../preview/workerd.ts';
import { ENDPOINTS, fileTemplate, filled, parametersOf } from '../../schemas/endpoints.ts';

Object.assign(process.env, S3_CREDENTIALS);

// Enough wallets that each of three shards holds some: A, B, C, a sub-account's owner and more.
const wallets = [A, B, C, ...Array.from({ length: 9 }, (_, i) => `0x${String(i + 1).repeat(40)}`)];
const tables: Tables = {
  balances: [
    ...wallets.map((address, i) =>
      balance({ address, block_number: i + 1, balance: `${(i + 1) * 1_000_000_000_000_000_000}`.replace(/e\+?\d+$/, '') }),
    ),
    balance({ address: SUB, block_number: 40, balance: '5000000', token: 'venueBUsdc' }),
  ],
  venue_b_accounts: [{ chain_id: 1, account: SUB, owner: A }],
  seasons: [{ season: 1, as_of: null }],
  points: wallets.map((address, i) => ({ season: 1, date: '2025-11-19', address, points: 10 + (i % 4) })),
};

const input = await writeInputs(path.join(tempDir(), 'input'), tables);
async function buildTree(now: string, shard?: string): Promise<string> {
  const out = path.join(tempDir(), 'public');
  await buildSnapshot(resolveBuildConfig({ input, out, now, shard, progress: 'quiet', threads: 1 }));
  return out;
}
const NIGHT_ONE = '2025-11-21T17:00:00Z';
const NIGHT_TWO = '2025-11-22T17:00:00Z';
const whole = await buildTree(NIGHT_TWO);
const shards = [await buildTree(NIGHT_TWO, '1/3'), await buildTree(NIGHT_TWO, '2/3'), await buildTree(NIGHT_TWO, '3/3')];
const earlier = await buildTree(NIGHT_ONE);

let s3: RunningS3;
let prefixes = 0;
const freshLocation = (): Location => parseLocation(`s3://${BUCKET}/shards-${++prefixes}`);
const to = (location: Location) => `s3://${location.bucket}/${location.prefix}`;
// These nights hold no prices: every position is without one, which the night's guard refuses
// (test/night-guard.test.ts); accepted here, where the subject is the shards.
const publishOptions = (extra: Record<string, unknown>) => ({
  concurrency: 8,
  maxAttempts: 2,
  progress: 'quiet' as const,
  endpoint: s3.endpoint,
  accept: ['unpriced' as const],
  ...extra,
});

test.before(async () => {
  s3 = await startS3Server();
});
test.after(async () => {
  await s3.close();
});

async function withClient<T>(body: (client: S3Client) => Promise<T>): Promise<T> {
  const client = await createStorageClient({ endpoint: s3.endpoint, maxAttempts: 2, concurrency: 8 });
  try {
    return await body(client);
  } finally {
    client.destroy();
  }
}

const stage = (dir: string, location: Location, extra: Record<string, unknown> = {}) =>
  runPublish({ ...publishOptions(extra), dir, to: to(location) });
const commit = (location: Location, version?: string) => runPublish({ ...publishOptions({}), to: to(location), commit: true, version });
const versionOf = (output: string) => /version (\d{4}-\d{2}-\d{2}-[0-9a-f]{16})/.exec(output)![1]!;

test('the shards of a build stage into one version without touching the pointer; the commit waits for all of them', async () => {
  const location = freshLocation();
  await runPublish({ ...publishOptions({}), dir: earlier, to: to(location) });
  const live = await withClient((client) => readPointer(client, location));

  const first = await stage(shards[0]!, location);
  assert.match(first, /^staged shard 1 of 3 of version \S+ at /);
  const second = await stage(shards[1]!, location);
  assert.match(second, /^staged shard 2 of 3 of version /);
  assert.is(versionOf(first), versionOf(second), 'every shard of one build arrives at the same version');
  assert.equal(await withClient((client) => readPointer(client, location)), live, 'staging never moves the pointer');

  const refused = await thrown(() => commit(location));
  assert.instance(refused, UserError);
  assert.is((refused as UserError).exitCode, 1);
  assert.match(refused.message, /1 of 3 shards are not staged \(shard 3;/);
  assert.match(refused.message, /untouched/);
  assert.equal(await withClient((client) => readPointer(client, location)), live, 'a refused commit leaves the live version');

  await stage(shards[2]!, location);
  const committed = await commit(location, versionOf(first));
  assert.match(
    committed,
    new RegExp(`^committed version ${versionOf(first)} \\(3 shards, \\d+ files\\) at .*: live \\(was ${live!.version}\\)`),
  );
  const pointer = await withClient((client) => readPointer(client, location));
  assert.is(pointer!.version, versionOf(first));
  assert.equal(pointer!.previous, [live!.version]);
});

/** The interface's path of a file of the tree: the endpoint table's path of the file's endpoint, else the file's own (the OpenAPI description). */
function pathOfFile(file: string): string {
  for (const endpoint of Object.values(ENDPOINTS)) {
    const names = parametersOf(endpoint.path);
    const pattern = fileTemplate(endpoint)
      .replace(/[.]/g, '\\.')
      .replace(/\{\w+\}/g, '([^/]+)');
    const match = new RegExp(`^${pattern}$`).exec(file);
    if (match) return filled(endpoint.path, Object.fromEntries(names.map((name, i) => [name, match[i + 1]!])));
  }
  return `/${file}`;
}

test('a committed sharded version answers through the Worker exactly as the tree built whole', async () => {
  const location = freshLocation();
  // The night's writes, every shard's stage and the commit, counted at the server.
  const proxy = await startFaultyProxy(s3.endpoint, () => 'forward');
  try {
    for (const shard of shards) await stage(shard, location, { endpoint: proxy.endpoint });
    await commit(location);
    // Each stage: its archive, its index, its night summary, its record (the commit went directly).
    assert.is(writeRequests(proxy.requests).length, 3 * 4);
    assert.ok(writeRequests(proxy.requests).length + 2 <= nightBound(proxy.requests));
  } finally {
    await proxy.close();
  }
  const worker = await startWorkerdFromBucket({ from: to(location), endpoint: s3.endpoint, port: 0, host: '127.0.0.1' });
  try {
    const documents = fs
      .readdirSync(path.join(whole, 'v1'), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => path.relative(whole, path.join(entry.parentPath, entry.name)));
    assert.ok(documents.length > wallets.length * 2);
    for (const file of documents) {
      const answer = await fetch(`${worker.url}${pathOfFile(file)}`);
      assert.is(answer.status, 200, `${file}: ${answer.status}`);
      assert.is(await answer.text(), fs.readFileSync(path.join(whole, file), 'utf8'), file);
    }
    const filtered = await fetch(`${worker.url}/v1/address/${A}/portfolio/daily?from=2025-11-21&to=2025-11-21`);
    assert.equal(await filtered.json(), {
      asOf: '2025-11-21',
      days: [JSON.parse(fs.readFileSync(path.join(whole, `v1/address/${A}/portfolio/daily.json`), 'utf8')).days.at(-1)],
    });
  } finally {
    await worker.close();
  }
});

test('a shard stopped mid-way is not staged; its rerun resumes and sends only what is missing', async () => {
  const location = freshLocation();
  // The archive is stored, then every request drops: the stage fails part of the way through.
  let puts = 0;
  const proxy = await startFaultyProxy(s3.endpoint, (_, request) => (request.method === 'PUT' && ++puts > 1 ? 'drop' : 'forward'));
  try {
    const failed = await thrown(() =>
      runPublish({ ...publishOptions({ endpoint: proxy.endpoint, maxAttempts: 1, concurrency: 2 }), dir: shards[0]!, to: to(location) }),
    );
    assert.match(failed.message, /resumes|failed|publish/);
  } finally {
    await proxy.close();
  }
  for (const shard of shards.slice(1)) await stage(shard, location);
  const refused = await thrown(() => commit(location));
  assert.match(refused.message, /shard 1;/, 'a stage that was stopped is not staged');
  const rerun = await stage(shards[0]!, location);
  assert.match(rerun, /sent 1 object \(.*\); 1 object \(.*\) stored already by a run stopped midway/, 'the rerun sends the index only');
  await commit(location);
  assert.is((await withClient((client) => readPointer(client, location)))!.version, versionOf(rerun));
  const again = await stage(shards[0]!, location);
  assert.match(again, /^staged shard 1 of 3 of version \S+ at \S+ already: nothing to send/);
  assert.match(again, /is committed already/);
});

test('a stage killed outright (SIGKILL) mid-way is not staged; its rerun skips what it stored', async () => {
  const location = freshLocation();
  let child: ReturnType<typeof import('node:child_process').spawn> | null = null;
  let puts = 0;
  // The archive is stored, then the process dies.
  const proxy = await startFaultyProxy(s3.endpoint, (_, request) => {
    if (request.method !== 'PUT' || ++puts <= 1) return 'forward';
    child?.kill('SIGKILL');
    return 'stall';
  });
  try {
    const killed = await runCli(
      ['publish', '--dir', shards[1]!, '--to', to(location), '--endpoint', proxy.endpoint, '--concurrency', '1', '--progress', 'lines'],
      {
        onStderr: (_, running) => {
          child = running;
        },
      },
    );
    assert.is(killed.signal, 'SIGKILL');
  } finally {
    await proxy.close();
  }
  await stage(shards[0]!, location);
  await stage(shards[2]!, location);
  assert.match((await thrown(() => commit(location))).message, /\(shard 2;/);
  const rerun = await stage(shards[1]!, location);
  // What the killed stage stored is not sent again.
  assert.match(rerun, /sent 1 object \(.*\); 1 object \(.*\) stored already by a run stopped midway/, rerun);
  assert.match(await commit(location), /^committed version /);
});

test('two builds never share a version; shards of different builds are refused by the commit', async () => {
  const location = freshLocation();
  const other = await buildTree('2025-11-22T18:00:00Z', '2/3');
  const mine = versionOf(await stage(shards[0]!, location));
  const theirs = versionOf(await stage(other, location));
  assert.is.not(mine, theirs, 'another build instant, another version');
  const refused = await thrown(() => commit(location, mine));
  assert.match(refused.message, /shards? 2, 3;/);
});

test('rollback, --keep and a second night work for sharded versions; --keep removes an abandoned staged version', async () => {
  const location = freshLocation();
  // An abandoned stage of an older night: never committed.
  const abandonedShard = await buildTree(NIGHT_ONE, '1/3');
  const abandoned = versionOf(await stage(abandonedShard, location));
  for (const shard of shards) await stage(shard, location);
  const sharded = versionOf(await commit(location));
  const second = await buildTree('2025-11-23T17:00:00Z');
  const published = await runPublish({ ...publishOptions({}), dir: second, to: to(location), keep: 2 });
  assert.match(published, new RegExp(`removed 1 version \\(${abandoned};`));
  const versions = await withClient((client) => listVersions(client, location));
  assert.not.ok(versions.includes(abandoned));
  assert.ok(versions.includes(sharded));
  const back = await runPublish({ ...publishOptions({}), to: to(location), rollback: true });
  assert.match(back, new RegExp(`live version ${sharded}`));
});

test('a tree edited after its build is refused before anything is sent, sharded or not', async () => {
  for (const source of [whole, shards[1]!]) {
    const location = freshLocation();
    await runPublish({ ...publishOptions({}), dir: earlier, to: to(location) });
    const copy = path.join(tempDir(), 'edited');
    fs.cpSync(fs.realpathSync(source), copy, { recursive: true });
    const wallet = fs.readdirSync(path.join(copy, 'v1/address'))[0]!;
    const daily = path.join(copy, 'v1/address', wallet, 'portfolio/daily.json');
    // One digit of one balance: the JSON stays valid.
    fs.writeFileSync(
      daily,
      fs.readFileSync(daily, 'utf8').replace(/"balance":(\d)/, (_, digit) => `"balance":${(Number(digit) + 1) % 10}`),
    );
    const live = await withClient((client) => readPointer(client, location));
    // The night's guard passes (its unpriced rule accepted, as for every night here): the edit is what refuses.
    const refused = await runCli(['publish', '--dir', copy, '--to', to(location), '--endpoint', s3.endpoint, '--accept', 'unpriced']);
    assert.is(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, new RegExp(`v1/address/${wallet}/portfolio/daily.json: edited since the build`));
    assert.match(refused.stderr, /nothing was sent/);
    assert.equal(await withClient((client) => readPointer(client, location)), live);
    assert.equal((await withClient((client) => listVersions(client, location))).length, 1, 'no version was started');
  }
});

test('every object in the bucket carries its Cache-Control and Content-Type; a version is its packs and records', async () => {
  const location = freshLocation();
  await runPublish({ ...publishOptions({}), dir: earlier, to: to(location) });
  for (const shard of shards) await stage(shard, location);
  await commit(location);
  const { HeadObjectCommand, ListObjectsV2Command } = await import('@aws-sdk/client-s3');
  const kinds = new Set<string>();
  await withClient(async (client) => {
    const page = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `${location.prefix}/` }));
    for (const { Key } of page.Contents ?? []) {
      const head = await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: Key! }));
      const key = Key!.slice(location.prefix.length + 1);
      const contentType = key.endsWith('.gz')
        ? 'application/gzip'
        : key.endsWith('.json')
          ? 'application/json; charset=utf-8'
          : 'application/octet-stream';
      assert.equal({ cacheControl: head.CacheControl, contentType: head.ContentType }, { cacheControl: 'no-cache', contentType }, key);
      kinds.add(key === 'live.json' ? 'pointer' : key.replace(/^versions\/[^/]+\//, '').replace(/\d+-of-\d+/, 'K-of-N'));
    }
  });
  assert.equal([...kinds].sort(), [
    '_publish/commit.json',
    '_publish/shards/K-of-N.sha256.gz',
    '_publish/shards/K-of-N.summary.json',
    '_publish/summary.json',
    'pack/K-of-N/00001.tar',
    'pack/K-of-N/index',
    'pointer',
  ]);
});

test('the CLI: a stage prints staged, the shard and the version; --commit --version is not the program version', async () => {
  const location = freshLocation();
  const outputs = [];
  for (const shard of shards) {
    const staged = await runCli(['publish', '--dir', shard, '--to', to(location), '--endpoint', s3.endpoint, '--progress', 'quiet']);
    assert.is(staged.code, 0, staged.stderr);
    outputs.push(staged.stdout);
  }
  assert.match(outputs[2]!, /^staged shard 3 of 3 of version /);
  assert.match(
    outputs[2]!,
    new RegExp(`once all 3 shards are staged: wallet-snapshot publish --commit --to \\S+ --endpoint ${s3.endpoint} --version \\S+`),
  );
  const id = versionOf(outputs[0]!);
  const committed = await runCli(['publish', '--commit', '--to', to(location), '--endpoint', s3.endpoint, '--version', id]);
  assert.is(committed.code, 0, committed.stderr);
  assert.match(committed.stdout, new RegExp(`^committed version ${id} \\(3 shards`));
  const unknown = await runCli(['publish', '--commit', '2025-01-01-0000000000000000', '--to', to(location), '--endpoint', s3.endpoint]);
  assert.is(unknown.code, 1);
  assert.match(unknown.stderr, /no shard of it is staged/);
  const keepOnStage = await runCli(['publish', '--dir', shards[0]!, '--to', to(location), '--endpoint', s3.endpoint, '--keep', '3']);
  assert.is(keepOnStage.code, 1);
  assert.match(keepOnStage.stderr, /give --keep to the --commit/);
  // Every wallet in a shard's tree is that shard's.
  for (const [i, shard] of shards.entries()) {
    for (const wallet of fs.readdirSync(path.join(shard, 'v1/address'))) assert.is(shardOf(wallet, 3), i + 1);
  }
});

test.run();
