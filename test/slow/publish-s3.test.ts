/**
 * `publish` against a real S3-protocol server on loopback (s3rver), through a proxy that can
 * throttle or drop connections: versions, the pointer written last, incremental copies, resume,
 * rollback and --keep.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { A, B, C, balance, build, thrown, type Built, type Tables } from '../helpers/fixtures.ts';
import { runCli } from '../helpers/process.ts';
import { BUCKET, S3_CREDENTIALS, startFaultyProxy, startS3Server, type Fault, type RunningS3 } from '../helpers/s3-server.ts';
import { Progress } from '../../core/progress.ts';
import { UserError } from '../../core/errors.ts';
import { runPublish } from '../../publish/index.ts';
import { publishTree, type PublishSummary } from '../../publish/publish-tree.ts';
import { createStorageClient } from '../../publish/storage.ts';
import { EXIT_STORAGE } from '../../core/errors.ts';
import { readPointer } from '../../publish/live-pointer.ts';
import { readPublishedVersion } from '../../publish/read-version.ts';
import { keepVersions } from '../../publish/keep-versions.ts';
import { rollback } from '../../publish/rollback.ts';
import { parseLocation, type Location } from '../../publish/location.ts';
import { contentTypeOf } from '../../tree/bucket.ts';
import { listVersions } from '../../publish/version-store.ts';

Object.assign(process.env, S3_CREDENTIALS);

const tables: Tables = {
  balances: [
    balance({ address: A, block_number: 1, balance: '1000000000000000000' }),
    balance({ address: B, block_number: 2, balance: '2500000000000000000', chain_id: 10 }),
    balance({ address: C, block_number: 3, balance: '7', token: 'venueBUsdc' }),
  ],
  seasons: [{ season: 1, as_of: null }],
  points: [{ season: 1, date: '2025-11-19', address: A, points: 12.5 }],
};

// Three nights of the same exports: each daily document grows a row, the histories stay.
const nights: Built[] = [];
for (const now of ['2025-11-21T17:00:00Z', '2025-11-22T17:00:00Z', '2025-11-23T17:00:00Z']) nights.push(await build(tables, { now }));

let s3: RunningS3;
let prefixes = 0;
/** Each test publishes under a prefix of its own in the one server. */
const freshLocation = (): Location => parseLocation(`s3://${BUCKET}/test-${++prefixes}`);
const options = { concurrency: 4, maxAttempts: 2, progress: 'quiet' as const, get endpoint() { return s3.endpoint; } };
const to = (location: Location) => `s3://${location.bucket}/${location.prefix}`;

test.before(async () => {
  s3 = await startS3Server();
});
test.after(async () => {
  await s3.close();
});

async function client(endpoint = s3.endpoint, maxAttempts = 3): Promise<S3Client> {
  return createStorageClient({ endpoint, maxAttempts, concurrency: 8 });
}

async function publish(tree: Built, location: Location, endpoint = s3.endpoint, maxAttempts = 3): Promise<PublishSummary> {
  const storage = await client(endpoint, maxAttempts);
  try {
    return await publishTree({ dir: tree.out, location, client: storage, concurrency: 8, progress: new Progress('quiet') });
  } finally {
    storage.destroy();
  }
}

/** Every file a publish sends: the tree less the static hosts' configuration files. */
function publishedFiles(tree: Built): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const entry of fs.readdirSync(tree.out, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const treePath = path.relative(tree.out, file);
    if (treePath !== '_headers' && treePath !== '_redirects') files.set(treePath, fs.readFileSync(file));
  }
  return files;
}

const isPointer = (url: string) => url.split('?')[0]!.endsWith('/live.json');
const sha256 = (bytes: Uint8Array) => crypto.createHash('sha256').update(bytes).digest('hex');

/**
 * The version as stored, checked object by object against the tree it was published from; a
 * document stored in two parts is checked as its rest and blob put together.
 */
async function assertVersionHolds(location: Location, tree: Built, version?: string): Promise<{ split: string[] }> {
  const storage = await client();
  try {
    const expected = publishedFiles(tree);
    const seen = new Set<string>();
    const objects = [];
    for await (const object of readPublishedVersion(storage, location, version)) objects.push(object);
    const blobs = new Map(objects.filter((object) => object.kind === 'blob').map((object) => [object.path, object]));
    for (const blob of blobs.values()) {
      assert.equal(blob.key, `${location.prefix}/${blob.path}`);
      assert.equal([blob.httpMetadata.contentEncoding, blob.httpMetadata.contentType], ['gzip', 'application/octet-stream']);
      assert.equal(`blobs/${sha256(zlib.gunzipSync(blob.body))}`, blob.path, 'a blob is named by the sha256 of its bytes');
    }
    const split: string[] = [];
    for (const object of objects.filter((object) => object.kind === 'file')) {
      const bytes = expected.get(object.path);
      assert.ok(bytes, `${object.path} is not a file of the tree`);
      seen.add(object.path);
      assert.equal(object.httpMetadata.contentType, contentTypeOf(object.path), object.path);
      assert.equal(object.httpMetadata.cacheControl, 'public, max-age=300, must-revalidate');
      assert.equal(object.httpMetadata.contentEncoding, 'gzip');
      let stored = zlib.gunzipSync(object.body);
      const blob = object.customMetadata.blob;
      if (blob) {
        split.push(object.path);
        const at = Number(object.customMetadata['blob-at']);
        const middle = zlib.gunzipSync(blobs.get(`blobs/${blob}`)!.body);
        stored = Buffer.concat([stored.subarray(0, at), middle, stored.subarray(at)]);
        assert.equal(object.customMetadata.size, String(bytes!.length));
        // The blob holds the whole rows of the months before that of the last closed day, the rest the others.
        const month = (tree.json('_snapshot/meta.json').lastClosedDay as string).slice(0, 7);
        assert.match(middle.toString(), /^\{"date":"\d{4}-\d{2}-\d{2}".*\},$/);
        assert.ok([...middle.toString().matchAll(/"date":"(\d{4}-\d{2})/g)].every((match) => match[1]! < month));
        assert.ok([...zlib.gunzipSync(object.body).toString().matchAll(/"date":"(\d{4}-\d{2})/g)].every((match) => match[1] === month));
      }
      assert.equal(Buffer.compare(stored, bytes!), 0, `${object.path}: the stored bytes gunzip (and assemble) to the file`);
      assert.equal(object.customMetadata.sha256, sha256(bytes!));
      assert.equal(object.customMetadata.mtime, String(Math.floor(fs.statSync(path.join(tree.out, object.path)).mtimeMs)));
    }
    assert.equal([...seen].sort(), [...expected.keys()].sort());
    return { split: split.sort() };
  } finally {
    storage.destroy();
  }
}

async function pointerOf(location: Location) {
  const storage = await client();
  try {
    return await readPointer(storage, location);
  } finally {
    storage.destroy();
  }
}

const changedPaths = (before: Built, after: Built) => {
  const old = publishedFiles(before);
  return [...publishedFiles(after)].filter(([file, bytes]) => !old.get(file)?.equals(bytes)).map(([file]) => file).sort();
};

const dailyOf = (wallet: string) => `v1/address/${wallet}/portfolio/daily.json`;

test('a first publish uploads every file gzipped, with its headers and metadata, then the pointer; daily documents reaching before the month in two parts', async () => {
  const location = freshLocation();
  const summary = await publish(nights[0]!, location);
  const files = publishedFiles(nights[0]!);
  assert.equal(summary.uploaded.objects, files.size);
  // The three wallets' rows start in June: their closed months (June to October) went to blobs.
  assert.equal(summary.blobs.uploaded.objects, 3);
  assert.equal(summary.blobs.stored.objects, 0);
  assert.equal(summary.uploaded.rawBytes + summary.blobs.uploaded.rawBytes, [...files.values()].reduce((sum, bytes) => sum + bytes.length, 0));
  assert.ok(summary.uploaded.sentBytes > 0 && summary.uploaded.sentBytes < summary.uploaded.rawBytes);
  assert.equal([summary.copied.objects, summary.skipped.objects, summary.replaced], [0, 0, null]);
  assert.match(summary.version, /^2025-11-20-[0-9a-f]{16}$/);
  const pointer = await pointerOf(location);
  assert.equal([pointer?.version, pointer?.previous], [summary.version, []]);
  const { split } = await assertVersionHolds(location, nights[0]!);
  assert.equal(split, [dailyOf(A), dailyOf(B), dailyOf(C)].sort());
});

test('publishing the live tree again sends nothing and leaves the pointer as it was', async () => {
  const location = freshLocation();
  await publish(nights[0]!, location);
  const before = await pointerOf(location);
  const proxy = await startFaultyProxy(s3.endpoint, () => 'forward');
  try {
    const again = await publish(nights[0]!, location, proxy.endpoint);
    assert.ok(again.alreadyLive);
    assert.equal([again.uploaded.objects, again.copied.objects, again.skipped.objects], [0, 0, publishedFiles(nights[0]!).size]);
    assert.equal(proxy.requests.map((request) => request.method), ['GET'], 'one read of the pointer, nothing written');
  } finally {
    await proxy.close();
  }
  assert.equal(await pointerOf(location), before);
});

test('the next night uploads only the files that changed and copies the rest server-side', async () => {
  const location = freshLocation();
  const first = await publish(nights[0]!, location);
  const second = await publish(nights[1]!, location);
  const changed = changedPaths(nights[0]!, nights[1]!);
  // Every daily document grows a row; meta.json, the page, the build's records and the night's
  // summary name the new day; the histories stay.
  assert.equal(changed, [
    '_snapshot/manifests/1-of-1.json',
    '_snapshot/manifests/1-of-1.sha256',
    '_snapshot/meta.json',
    '_snapshot/night/1-of-1.json',
    '_snapshot/no-history/daily.json',
    'index.html',
    `v1/address/${A}/portfolio/daily.json`,
    `v1/address/${B}/portfolio/daily.json`,
    `v1/address/${C}/portfolio/daily.json`,
  ].sort());
  assert.equal(second.uploaded.objects, changed.length);
  assert.equal(second.copied.objects, publishedFiles(nights[1]!).size - changed.length);
  // The closed months are the same: their blobs are neither sent nor copied again.
  assert.equal([second.blobs.uploaded.objects, second.blobs.stored.objects], [0, 3]);
  assert.equal([second.copied.sentBytes, second.skipped.objects, second.replaced], [0, 0, first.version]);
  assert.match(second.version, /^2025-11-21-/);
  const pointer = await pointerOf(location);
  assert.equal([pointer?.version, pointer?.previous], [second.version, [first.version]]);
  // Copies carry this night's mtime, as a reader of the tree folder sees it.
  await assertVersionHolds(location, nights[1]!);
  await assertVersionHolds(location, nights[0]!, first.version);
});

test('throttling (503 SlowDown, 429) and a dropped connection are retried, and the publish completes', async () => {
  const location = freshLocation();
  const faults: Record<number, Fault> = { 4: 'drop', 12: 'slow-down', 14: 'too-many-requests' };
  const proxy = await startFaultyProxy(s3.endpoint, (n) => faults[n] ?? 'forward');
  try {
    const summary = await publish(nights[0]!, location, proxy.endpoint, 4);
    assert.equal(summary.uploaded.objects, publishedFiles(nights[0]!).size);
    assert.equal(proxy.requests.filter((request) => request.fault !== 'forward').length, 3);
  } finally {
    await proxy.close();
  }
  await assertVersionHolds(location, nights[0]!);
});

test('a publish whose connections drop for good leaves the live version, exits 5, and resumes when run again', async () => {
  const location = freshLocation();
  const first = await publish(nights[0]!, location);
  // Requests 1-4 read the pointer, the live night's summary (the guard), list the new version, read
  // the live manifest; then 4 objects go.
  const proxy = await startFaultyProxy(s3.endpoint, (n) => (n <= 8 ? 'forward' : 'drop'));
  try {
    const failed = await runCli(['publish', '--dir', nights[1]!.out, '--to', to(location), '--endpoint', proxy.endpoint, '--max-attempts', '2', '--concurrency', '1', '--progress', 'quiet']);
    assert.equal(failed.code, EXIT_STORAGE, failed.stderr);
    assert.match(failed.stderr, /failed after 2 attempts/);
    assert.match(failed.stderr, /running the same publish again resumes/);
    assert.equal(failed.stdout, '');
    assert.not.ok(proxy.requests.some((request) => request.method === 'PUT' && isPointer(request.url)));
  } finally {
    await proxy.close();
  }
  assert.equal((await pointerOf(location))?.version, first.version, 'the live version is untouched');

  const watched = await startFaultyProxy(s3.endpoint, () => 'forward');
  try {
    const resumed = await publish(nights[1]!, location, watched.endpoint);
    assert.equal(resumed.skipped.objects, 4);
    assert.equal(resumed.uploaded.objects + resumed.copied.objects + 4, publishedFiles(nights[1]!).size);
    // The pointer is the last object written.
    const writes = watched.requests.filter((request) => request.method === 'PUT');
    assert.ok(isPointer(writes.at(-1)!.url));
    assert.equal(writes.filter((request) => isPointer(request.url)).length, 1);
  } finally {
    await watched.close();
  }
  await assertVersionHolds(location, nights[1]!);
});

test('one object that cannot be stored fails the publish: the pointer is never written, and a rerun sends what is missing', async () => {
  const location = freshLocation();
  const broken = `${B}/portfolio.json`;
  const proxy = await startFaultyProxy(s3.endpoint, (_, request) => (request.url!.includes(broken) ? 'drop' : 'forward'));
  try {
    const error = await thrown(() => publish(nights[0]!, location, proxy.endpoint, 2));
    assert.equal((error as UserError).exitCode, EXIT_STORAGE);
    assert.match(error.message, new RegExp(`uploading test-\\d+/versions/2025-11-20-[0-9a-f]{16}/v1/address/${B}/portfolio.json failed after 2 attempts`));
    assert.not.ok(proxy.requests.some((request) => request.method === 'PUT' && isPointer(request.url)));
  } finally {
    await proxy.close();
  }
  assert.equal(await pointerOf(location), null);
  const rerun = await publish(nights[0]!, location);
  assert.ok(rerun.skipped.objects > 0 && rerun.uploaded.objects > 0);
  assert.equal(rerun.skipped.objects + rerun.uploaded.objects, publishedFiles(nights[0]!).size);
  await assertVersionHolds(location, nights[0]!);
});

test('Ctrl-C stops a publish at once with exit 130 and leaves the live version', async () => {
  const location = freshLocation();
  const first = await publish(nights[0]!, location);
  const proxy = await startFaultyProxy(s3.endpoint, (_, request) => (request.method === 'PUT' ? 'stall' : 'forward'));
  try {
    const args = ['publish', '--dir', nights[1]!.out, '--to', to(location), '--endpoint', proxy.endpoint, '--progress', 'lines'];
    let sent = false;
    const result = await runCli(args, {
      onStderr: (text, child) => {
        if (!sent && text.includes('publish version')) {
          sent = true;
          setTimeout(() => child.kill('SIGINT'), 200);
        }
      },
    });
    assert.equal(result.code, 130, result.stderr);
    assert.match(result.stderr, /interrupted while .*; the live version was left as it was/);
  } finally {
    await proxy.close();
  }
  assert.equal((await pointerOf(location))?.version, first.version);
});

test('a publish killed outright (SIGKILL) mid-way leaves the live version, and a rerun resumes into the same version', async () => {
  const location = freshLocation();
  const first = await publish(nights[0]!, location);
  let child: ReturnType<typeof import('node:child_process').spawn> | null = null;
  let puts = 0;
  const proxy = await startFaultyProxy(s3.endpoint, (_, request) => {
    if (request.method !== 'PUT' || ++puts <= 5) return 'forward';
    child?.kill('SIGKILL');
    return 'stall';
  });
  try {
    const killed = await runCli(['publish', '--dir', nights[1]!.out, '--to', to(location), '--endpoint', proxy.endpoint, '--concurrency', '1', '--progress', 'lines'], {
      onStderr: (_, running) => {
        child = running;
      },
    });
    assert.equal(killed.code, null, 'killed by the signal');
  } finally {
    await proxy.close();
  }
  assert.equal((await pointerOf(location))?.version, first.version);
  const resumed = await publish(nights[1]!, location);
  assert.equal(resumed.skipped.objects, 5);
  assert.equal((await pointerOf(location))?.version, resumed.version);
  await assertVersionHolds(location, nights[1]!);
});

test('--rollback moves the pointer back one version, and refuses when there is none', async () => {
  const location = freshLocation();
  const first = await publish(nights[0]!, location);
  const second = await publish(nights[1]!, location);
  const back = await runCli(['publish', '--rollback', '--to', to(location), '--endpoint', s3.endpoint]);
  assert.equal(back.code, 0, back.stderr);
  assert.equal(back.stdout, `rolled back ${to(location)}: live version ${first.version} (was ${second.version})\n`);
  const pointer = await pointerOf(location);
  assert.equal([pointer?.version, pointer?.previous], [first.version, []]);
  await assertVersionHolds(location, nights[0]!);

  const none = await thrown(() => runPublish({ ...options, rollback: true, to: to(location) }));
  assert.equal((none as UserError).exitCode, 1);
  assert.match(none.message, new RegExp(`has no version before ${first.version}`));
  const nothing = await thrown(() => runPublish({ ...options, rollback: true, to: `${to(location)}-empty` }));
  assert.equal((nothing as UserError).exitCode, 1);
  assert.match(nothing.message, /nothing is published/);

  // Publishing the rolled-back tree again finds its objects stored and only switches back.
  const again = await publish(nights[1]!, location);
  assert.equal([again.version, again.uploaded.objects, again.copied.objects], [second.version, 0, 0]);
  assert.equal(again.skipped.objects, publishedFiles(nights[1]!).size);
  assert.equal((await pointerOf(location))?.previous, [first.version]);
});

test('--keep N keeps the N newest versions of the history and removes older and abandoned ones', async () => {
  const location = freshLocation();
  // An abandoned publish of an older night: stored objects, never live.
  const dropping = await startFaultyProxy(s3.endpoint, (n) => (n <= 5 ? 'forward' : 'drop'));
  try {
    const error = await thrown(() => publish(nights[0]!, location, dropping.endpoint, 1));
    assert.equal((error as UserError).exitCode, EXIT_STORAGE);
  } finally {
    await dropping.close();
  }
  const second = await publish(nights[1]!, location);
  const third = await publish(nights[2]!, location);
  const storage = await client();
  try {
    assert.equal((await listVersions(storage, location)).length, 3);
    const refused = await thrown(() => runPublish({ ...options, to: to(location), dir: nights[2]!.out, keep: 1 }));
    assert.match(refused.message, /--keep 1: expected a whole number of at least 2/);

    const kept = await keepVersions(storage, location, 2);
    assert.equal(kept.kept, [third.version, second.version]);
    assert.equal(kept.removed.length, 1);
    assert.match(kept.removed[0]!, /^2025-11-20-/);
    assert.equal(await listVersions(storage, location), [second.version, third.version]);

    const only = await keepVersions(storage, location, 2);
    assert.equal(only.removed, []);
    // After a rollback the version rolled back from is kept: it is today's.
    await rollback(storage, location);
    assert.equal((await keepVersions(storage, location, 2)).removed, []);
    assert.equal(await listVersions(storage, location), [second.version, third.version]);
    const left = await storage.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `${location.prefix}/versions/2025-11-20` }));
    assert.equal(left.KeyCount, 0);
  } finally {
    storage.destroy();
  }

  const text = await runPublish({ ...options, dir: nights[2]!.out, to: to(location), keep: 2 });
  assert.match(text, new RegExp(`kept 2 versions at ${to(location)} \\(${third.version}, ${second.version}\\); removed no version`));
});

test('a folder that is not a built tree, and bad options, are refused before anything is sent', async () => {
  const location = freshLocation();
  const empty = path.join(nights[0]!.out, '..', 'empty');
  fs.mkdirSync(empty, { recursive: true });
  const cases: [Partial<Parameters<typeof runPublish>[0]>, RegExp][] = [
    [{ dir: empty }, /holds no snapshot tree: _snapshot\/meta.json cannot be read/],
    [{ dir: nights[0]!.out, to: 's3://Bad_Bucket' }, /"Bad_Bucket" is not a bucket name/],
    [{ dir: nights[0]!.out, to: 'https://example.com/x' }, /expected s3:\/\/BUCKET or s3:\/\/BUCKET\/PREFIX/],
    [{ dir: nights[0]!.out, rollback: true }, /--rollback .* takes no --dir/],
    [{}, /--dir is required/],
    [{ dir: nights[0]!.out, endpoint: 'localhost:9000' }, /--endpoint localhost:9000: expected an http:\/\/ or https:\/\/ URL/],
  ];
  for (const [given, message] of cases) {
    const error = await thrown(() => runPublish({ ...options, to: to(location), ...given }));
    assert.equal((error as UserError).exitCode, 1, `${JSON.stringify(given)}: ${error.message}`);
    assert.match(error.message, message);
  }
  assert.equal(await pointerOf(location), null);
  // The real process: a refusal exits 1 with the message, a missing --to is a usage error.
  const refused = await runCli(['publish', '--dir', empty, '--to', to(location), '--endpoint', s3.endpoint]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /^wallet-snapshot: --dir .* holds no snapshot tree/);
  const missing = await runCli(['publish', '--dir', nights[0]!.out]);
  assert.equal(missing.code, 2, 'a missing --to is a usage error');
});

test('unknown credentials exit 1 with a message naming what to check', async () => {
  const location = freshLocation();
  // s3rver does not check SigV4 signatures, only that the key id exists.
  const saved = process.env.AWS_ACCESS_KEY_ID;
  process.env.AWS_ACCESS_KEY_ID = 'NOBODY';
  try {
    const error = await thrown(() => runPublish({ ...options, dir: nights[0]!.out, to: to(location) }));
    assert.equal((error as UserError).exitCode, 1);
    assert.match(error.message, /reading test-\d+\/live.json was refused: InvalidAccessKeyId/);
    assert.match(error.message, /check the credentials/);
  } finally {
    process.env.AWS_ACCESS_KEY_ID = saved;
  }
});

test('the pointer is plain JSON that any reader can fetch', async () => {
  const location = freshLocation();
  const summary = await publish(nights[0]!, location);
  const storage = await client();
  try {
    const answer = await storage.send(new GetObjectCommand({ Bucket: BUCKET, Key: `${location.prefix}/live.json` }));
    assert.equal(answer.ContentType, 'application/json; charset=utf-8');
    assert.equal(answer.CacheControl, 'no-cache');
    const pointer = JSON.parse(await answer.Body!.transformToString());
    assert.equal(Object.keys(pointer), ['version', 'previous', 'publishedAt']);
    assert.equal(pointer.version, summary.version);
  } finally {
    storage.destroy();
  }
});

test.run();
