/**
 * Daily documents stored in two parts by `publish` (the closed months' rows as a shared blob, the
 * rest under the version), against a real S3-protocol server on loopback (s3rver) and the Worker
 * in workerd: a second night sends only the small parts, the Worker answers the whole document,
 * a missing blob is a 503, --keep and --rollback keep what the kept versions need, and an
 * interrupted publish resumes whole even when its blobs were removed meanwhile.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { DeleteObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { build, thrown, type Built } from '../helpers/fixtures.ts';
import { request } from '../helpers/http.ts';
import { BUCKET, S3_CREDENTIALS, startFaultyProxy, startS3Server, type RunningS3 } from '../helpers/s3-server.ts';
import { Progress } from '../../core/progress.ts';
import { UserError } from '../../core/errors.ts';
import { publishTree, type PublishSummary } from '../../publish/publish-tree.ts';
import { createStorageClient } from '../../publish/storage.ts';
import { EXIT_STORAGE } from '../../core/errors.ts';
import { readPublishedVersion, type PublishedObject } from '../../publish/read-version.ts';
import { keepVersions } from '../../publish/keep-versions.ts';
import { rollback } from '../../publish/rollback.ts';
import { blobKey, parseLocation, type Location } from '../../publish/location.ts';
import { deleteUnreferencedBlobs, storedBlobs } from '../../publish/version-store.ts';
import { startWorkerdOverObjects } from '../../preview/workerd.ts';

Object.assign(process.env, S3_CREDENTIALS);

const WALLETS = 24;
const wallet = (n: number) => `0x${(n + 1).toString(16).padStart(40, '0')}`;
const dailyOf = (address: string) => `v1/address/${address}/portfolio/daily.json`;

// 24 wallets, a balance change every 3 days from April to early November, a price a day: the
// daily documents are most of the tree's bytes, as at real scale.
const generated = {
  balances: `SELECT 1::BIGINT AS chain_id, (w * 1000 + d)::BIGINT AS block_number, 0 AS log_index, '0xtx' || w || '_' || d AS tx_hash,
      (1743508800 + d * 259200 + w * 60)::BIGINT AS timestamp, '0x' || lpad(printf('%x', w + 1), 40, '0') AS address, 'uty' AS token,
      ((w + 1)::HUGEINT * 1000000000000000000 + d::HUGEINT * 12345678901234567)::VARCHAR AS balance
    FROM range(${WALLETS}) a(w), range(72) b(d)`,
  prices: `SELECT 1::BIGINT AS chain_id, 'uty' AS token, (DATE '2025-03-01' + d::INTEGER) AS date, 1 + d / 997.0 AS usd_price FROM range(300) p(d)`,
};
const tables = { seasons: [{ season: 1, as_of: null }] };

// A night of November (the closed months end with October), then two consecutive nights of
// December (November closed; the current month has 18 and 19 rows).
const [nov9, dec19, dec20] = await Promise.all(
  ['2025-11-09T17:00:00Z', '2025-12-19T17:00:00Z', '2025-12-20T17:00:00Z'].map((now) => build(tables, { now, generated })),
) as [Built, Built, Built];

let s3: RunningS3;
let prefixes = 0;
const freshLocation = (): Location => parseLocation(`s3://${BUCKET}/parts-${++prefixes}`);

test.before(async () => {
  s3 = await startS3Server();
});
test.after(async () => {
  await s3.close();
});

async function withClient<T>(body: (client: S3Client) => Promise<T>, endpoint = s3.endpoint, maxAttempts = 3): Promise<T> {
  const client = await createStorageClient({ endpoint, maxAttempts, concurrency: 8 });
  try {
    return await body(client);
  } finally {
    client.destroy();
  }
}

const publish = (tree: Built, location: Location, endpoint = s3.endpoint, maxAttempts = 3): Promise<PublishSummary> =>
  withClient((client) => publishTree({ dir: tree.out, location, client, concurrency: 8, progress: new Progress('quiet') }), endpoint, maxAttempts);

const sent = (summary: PublishSummary) => summary.uploaded.sentBytes + summary.blobs.uploaded.sentBytes;

async function versionObjects(location: Location, version?: string): Promise<PublishedObject[]> {
  return withClient(async (client) => {
    const objects: PublishedObject[] = [];
    for await (const object of readPublishedVersion(client, location, version)) objects.push(object);
    return objects;
  });
}

/**
 * The Worker in workerd over a version read back from the bucket as stored (less the objects
 * `drop` names), with a pointer to it.
 */
async function startWorkerOver(location: Location, version: string, drop: (object: PublishedObject) => boolean = () => false) {
  const objects = (await versionObjects(location, version)).filter((object) => !drop(object));
  const pointer = { key: 'live.json', body: new TextEncoder().encode(JSON.stringify({ version })), httpMetadata: {}, customMetadata: {} };
  async function* unprefixed() {
    for (const object of [...objects, pointer]) yield { ...object, key: object.key.startsWith(`${location.prefix}/`) ? object.key.slice(location.prefix.length + 1) : object.key };
  }
  return startWorkerdOverObjects(unprefixed(), { port: 0, host: '127.0.0.1' });
}

/** Daily documents as the Worker answers them (whole, and cut across the end of the closed months), against the tree's files. */
async function assertWorkerAnswersWhole(url: string, tree: Built, wallets: number[]): Promise<void> {
  const month = (tree.json('_snapshot/meta.json').lastClosedDay as string).slice(0, 7);
  const previous = month === '2025-12' ? '2025-11' : '2025-10';
  for (const n of wallets) {
    const address = wallet(n);
    const whole = fs.readFileSync(path.join(tree.out, dailyOf(address)), 'utf8');
    const answer = await request(url, `/v1/address/${address}/portfolio/daily`, { headers: { 'Accept-Encoding': 'gzip' } });
    assert.is(answer.status, 200);
    assert.is(answer.text, whole, address);
    const cut = await request(url, `/v1/address/${address}/portfolio/daily?from=${previous}-29&to=${month}-02`);
    assert.equal(cut.json.days.map((day: { date: string }) => day.date), [`${previous}-29`, `${previous}-30`, ...(previous === '2025-10' ? ['2025-10-31'] : []), `${month}-01`, `${month}-02`]);
  }
}

/** The version read back: each document stored in two parts puts together to the tree's file. */
async function assertStoredWhole(location: Location, tree: Built, version: string): Promise<void> {
  const objects = await versionObjects(location, version);
  const blobs = new Map(objects.filter((object) => object.kind === 'blob').map((object) => [object.path, zlib.gunzipSync(object.body)]));
  let split = 0;
  for (const object of objects.filter((object) => object.kind === 'file')) {
    let bytes = zlib.gunzipSync(object.body);
    if (object.customMetadata.blob) {
      const at = Number(object.customMetadata['blob-at']);
      bytes = Buffer.concat([bytes.subarray(0, at), blobs.get(`blobs/${object.customMetadata.blob}`)!, bytes.subarray(at)]);
      split++;
    }
    assert.ok(bytes.equals(fs.readFileSync(path.join(tree.out, object.path))), object.path);
  }
  assert.is(split, WALLETS);
}

test('the daily documents of the fixture reach back months before the nights', () => {
  const days = dec19.json(dailyOf(wallet(0))).days;
  assert.is(days[0].date, '2025-04-01');
  assert.is(days.at(-1).date, '2025-12-18');
});

test('a second night with one more day sends a small fraction of the first; the Worker answers the documents whole, and a 503 when a blob is missing', async () => {
  const location = freshLocation();
  const first = await publish(dec19, location);
  const second = await publish(dec20, location);
  const ratio = sent(second) / sent(first);
  assert.ok(ratio < 0.25, `the second night sent ${sent(second)} bytes, ${(ratio * 100).toFixed(1)}% of the first night's ${sent(first)}`);
  // Every wallet's closed months (April to November) went to a blob of its own, once.
  assert.equal([first.blobs.uploaded.objects, first.blobs.stored.objects], [WALLETS, 0]);
  assert.equal([second.blobs.uploaded.objects, second.blobs.stored.objects], [0, WALLETS]);
  // Every daily document changed (a row more, a new asOf): the rest of each is uploaded again.
  assert.ok(second.uploaded.objects >= WALLETS);
  // What is stored under the second version holds the current month's rows only.
  const rest = (await versionObjects(location, second.version)).find((object) => object.path === dailyOf(wallet(3)))!;
  const dates = [...zlib.gunzipSync(rest.body).toString().matchAll(/"date":"([\d-]+)"/g)].map((match) => match[1]);
  assert.equal(dates, Array.from({ length: 19 }, (_, i) => `2025-12-${String(i + 1).padStart(2, '0')}`));

  const victim = rest.customMetadata.blob!;
  const worker = await startWorkerOver(location, second.version, (object) => object.path === `blobs/${victim}`);
  try {
    await assertWorkerAnswersWhole(worker.url, dec20, [0, 17, WALLETS - 1]);
    for (const query of ['', '?from=2025-12-01']) {
      const answer = await request(worker.url, `/v1/address/${wallet(3)}/portfolio/daily${query}`);
      assert.is(answer.status, 503, query);
      assert.is(answer.headers['retry-after'], '1');
      assert.match(answer.json.error, `blobs/${victim}, which is missing`);
    }
  } finally {
    await worker.close();
  }
});

test('--keep removes the blobs no kept version refers to and keeps the others; rollback returns to a version whose blobs are kept, and refuses one whose blob is gone', async () => {
  const location = freshLocation();
  const november = await publish(nov9, location);
  const first = await publish(dec19, location);
  // A month closed since November: every wallet's closed months are a new blob.
  assert.equal([first.blobs.uploaded.objects, first.blobs.stored.objects], [WALLETS, 0]);
  await withClient(async (client) => {
    assert.equal((await keepVersions(client, location, 2)).removed, [], 'nothing removed, no blob removed');
    assert.is((await storedBlobs(client, location)).size, 2 * WALLETS);
  });
  const second = await publish(dec20, location);
  await withClient(async (client) => {
    const kept = await keepVersions(client, location, 2);
    assert.equal([kept.removed, kept.blobsRemoved], [[november.version], WALLETS]);
    assert.is((await storedBlobs(client, location)).size, WALLETS, 'the December blobs, which both kept versions refer to');
    assert.equal(await rollback(client, location), { from: second.version, to: first.version });
  });
  await assertStoredWhole(location, dec19, first.version);

  // Back to the second night; then a blob of the first is lost: the rollback to it is refused.
  await publish(dec20, location);
  await withClient(async (client) => {
    const blob = [...(await storedBlobs(client, location))][0]!;
    await client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: blobKey(location, blob) }));
    const refused = await thrown(() => rollback(client, location));
    assert.is((refused as UserError).exitCode, 1);
    assert.match(refused.message, new RegExp(`1 blobs of the previous version ${first.version} .* are missing \\(e.g. blobs/${blob}\\); nothing was changed`));
  });
  assert.is(await readLive(location), second.version);
});

/** A publish of the December night whose connections drop after 30 requests: its version's id. */
async function interruptedDecember(location: Location): Promise<string> {
  const proxy = await startFaultyProxy(s3.endpoint, (n) => (n <= 30 ? 'forward' : 'drop'));
  try {
    const error = await thrown(() => publish(dec19, location, proxy.endpoint, 1));
    assert.is((error as UserError).exitCode, EXIT_STORAGE);
  } finally {
    await proxy.close();
  }
  const keys = await withClient((client) => listAll(client, location));
  return /\/versions\/(2025-12-18-[0-9a-f]{16})\//.exec(keys.find((key) => key.includes('/versions/2025-12-18-'))!)![1]!;
}

test('an interrupted publish stored each blob before the objects that refer to it, and its rerun sends neither again', async () => {
  const location = freshLocation();
  const first = await publish(nov9, location);
  const interrupted = await interruptedDecember(location);
  assert.is(await readLive(location), first.version, 'the live version is untouched');
  // Reading the incomplete version back reads every blob its stored objects name: none is missing.
  const stored = await versionObjects(location, interrupted);
  assert.ok(stored.some((object) => object.kind === 'blob'));
  // Some blobs may have been stored without the object that names them (it was in flight).
  const blobsSent = (await withClient((client) => storedBlobs(client, location))).size - WALLETS;
  assert.ok(blobsSent >= stored.filter((object) => object.kind === 'blob').length);

  const resumed = await publish(dec19, location);
  assert.is(resumed.version, interrupted);
  assert.ok(resumed.skipped.objects > 0);
  assert.equal([resumed.blobs.uploaded.objects, resumed.blobs.stored.objects], [WALLETS - blobsSent, blobsSent]);
  assert.is(await readLive(location), resumed.version);
  await assertStoredWhole(location, dec19, resumed.version);
});

test('an interrupted publish resumes whole when another --keep removed its blobs meanwhile', async () => {
  const location = freshLocation();
  await publish(nov9, location);
  await interruptedDecember(location);
  // Another night's --keep (a version removed) removes the blobs no complete version refers to.
  const removed = await withClient((client) => deleteUnreferencedBlobs(client, location));
  assert.ok(removed > 0);
  assert.is((await withClient((client) => storedBlobs(client, location))).size, WALLETS, 'only the live version\'s blobs are left');

  const resumed = await publish(dec19, location);
  assert.ok(resumed.skipped.objects > 0);
  assert.equal([resumed.blobs.uploaded.objects, resumed.blobs.stored.objects], [WALLETS, 0]);
  await assertStoredWhole(location, dec19, resumed.version);
});

async function readLive(location: Location): Promise<string | undefined> {
  const { readPointer } = await import('../../publish/live-pointer.ts');
  return withClient(async (client) => (await readPointer(client, location))?.version);
}

async function listAll(client: S3Client, location: Location): Promise<string[]> {
  const { listKeys } = await import('../../publish/version-store.ts');
  const keys: string[] = [];
  for await (const key of listKeys(client, location, `${location.prefix}/`)) keys.push(key);
  return keys;
}

// The blob key of the one layout (tree/bucket.ts) that the Worker's store reads, under publish's prefix.
test('publish and the Worker agree on where a blob is', async () => {
  const { blobKey: workerBlobKey } = await import('../../tree/bucket.ts');
  const sha = 'ab'.repeat(32);
  assert.is(blobKey(parseLocation(`s3://${BUCKET}/p`), sha), `p/${workerBlobKey(sha)}`);
});

test.run();
