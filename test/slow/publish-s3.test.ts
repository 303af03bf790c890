/**
 * `publish` against a real S3-protocol server on loopback (s3rver), through a proxy that can
 * throttle or drop connections and counts the requests: packed versions (archives, an index, a
 * record, a commit), the pointer written last, a night within the request bound, resume,
 * rollback and --keep. Each version is read back through the Worker's own store.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { A, B, C, balance, build, tempDir, thrown, type Built, type Tables } from '../helpers/fixtures.ts';
import { runCli } from '../helpers/process.ts';
import {
  BUCKET,
  nightBound,
  S3_CREDENTIALS,
  startFaultyProxy,
  startS3Server,
  writeRequests,
  type Fault,
  type RunningS3,
} from '../helpers/s3-server.ts';
import { Progress } from '../../core/progress.ts';
import type { UserError } from '../../core/errors.ts';
import { runPublish } from '../../publish/index.ts';
import { publishTree, type PublishSummary } from '../../publish/publish-tree.ts';
import { createStorageClient } from '../../publish/storage.ts';
import { EXIT_STORAGE } from '../../core/errors.ts';
import { readPointer } from '../../publish/live-pointer.ts';
import { keepVersions } from '../../publish/keep-versions.ts';
import { rollback } from '../../publish/rollback.ts';
import { parseLocation, type Location } from '../../publish/location.ts';
import { listKeys, listVersions } from '../../publish/version-store.ts';
import { R2TreeStore, type R2BucketLike } from '../../server/r2-store.ts';

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
const options = {
  concurrency: 4,
  maxAttempts: 2,
  progress: 'quiet' as const,
  get endpoint() {
    return s3.endpoint;
  },
};
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
    return await publishTree({ dir: tree.out, location, client: storage, progress: new Progress('quiet') });
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

/** The Worker's R2 binding, played by the S3 server: a read, or a range read. */
function bucketOver(storage: S3Client): R2BucketLike {
  return {
    async get(key, options) {
      const range = options?.range ? `bytes=${options.range.offset}-${options.range.offset + options.range.length - 1}` : undefined;
      try {
        const answer = await storage.send(new GetObjectCommand({ Bucket: BUCKET, Key: key, Range: range }));
        const bytes = await answer.Body!.transformToByteArray();
        return { arrayBuffer: async () => new Uint8Array(bytes).buffer };
      } catch (error) {
        if ((error as { name?: string }).name === 'NoSuchKey') return null;
        throw error;
      }
    },
  };
}

/**
 * The live version, read file by file through the Worker's own store over the bucket: every file
 * of the tree is there, as stored (gzip for text), with its sha256 and mtime; and each archive is
 * a tar that lists exactly the tree's files. Returns the version's keys.
 */
async function assertVersionHolds(location: Location, tree: Built): Promise<string[]> {
  const storage = await client();
  try {
    const version = await new R2TreeStore(bucketOver(storage), `${location.prefix}/`).open();
    const expected = publishedFiles(tree);
    for (const [file, bytes] of expected) {
      const stored = await version.read(file);
      assert.ok(stored, `${file} is in the version`);
      assert.equal(stored!.encoding, 'gzip', file);
      assert.equal(Buffer.compare(zlib.gunzipSync(stored!.bytes), bytes), 0, `${file}: the stored bytes gunzip to the file`);
      assert.equal(stored!.digest, sha256(bytes));
      assert.equal(stored!.modified, Math.floor(fs.statSync(path.join(tree.out, file)).mtimeMs));
    }
    const pointer = (await readPointer(storage, location))!;
    const prefix = `${location.prefix}/versions/${pointer.version}/`;
    const keys: string[] = [];
    for await (const key of listKeys(storage, location, prefix)) keys.push(key.slice(prefix.length));
    const folder = tempDir('ws-archives-');
    const members: string[] = [];
    for (const key of keys.filter((key) => key.endsWith('.tar'))) {
      const answer = await storage.send(new GetObjectCommand({ Bucket: BUCKET, Key: `${prefix}${key}` }));
      assert.equal([answer.ContentType, answer.CacheControl], ['application/octet-stream', 'no-cache']);
      fs.writeFileSync(path.join(folder, 'archive.tar'), await answer.Body!.transformToByteArray());
      members.push(
        ...execFileSync('tar', ['-tf', path.join(folder, 'archive.tar')], { encoding: 'utf8' })
          .trim()
          .split('\n'),
      );
    }
    assert.equal(members.sort(), [...expected.keys()].map((file) => `${file}.gz`).sort(), 'tar -tf lists every file of the tree');
    return keys.sort();
  } finally {
    storage.destroy();
  }
}

/** A small tree's version: one archive, its index, the shard's record, the commit. */
const SMALL_VERSION = ['_publish/commit.json', '_publish/shards/1-of-1.sha256.gz', 'pack/1-of-1/00001.tar', 'pack/1-of-1/index'];

async function pointerOf(location: Location) {
  const storage = await client();
  try {
    return await readPointer(storage, location);
  } finally {
    storage.destroy();
  }
}

test('a first publish packs the tree into one archive and an index, then the record, the commit and the pointer: 5 writes', async () => {
  const location = freshLocation();
  const proxy = await startFaultyProxy(s3.endpoint, () => 'forward');
  let summary: PublishSummary;
  try {
    summary = await publish(nights[0]!, location, proxy.endpoint);
    const writes = writeRequests(proxy.requests).map(
      (request) => `${request.method} ${decodeURIComponent(request.url.split('?')[0]!).replace(/^.*\/versions\/[^/]+\//, '')}`,
    );
    assert.equal(writes, [
      'PUT pack/1-of-1/00001.tar',
      'PUT pack/1-of-1/index',
      'PUT _publish/shards/1-of-1.sha256.gz',
      'PUT _publish/commit.json',
      `PUT /${BUCKET}/${location.prefix}/live.json`,
    ]);
  } finally {
    await proxy.close();
  }
  const files = publishedFiles(nights[0]!);
  assert.equal(summary.stage!.pack.files, files.size);
  assert.equal(
    summary.stage!.pack.rawBytes,
    [...files.values()].reduce((sum, bytes) => sum + bytes.length, 0),
  );
  assert.equal(summary.stage!.pack.sent.objects, 2);
  assert.ok(summary.stage!.pack.sent.bytes < summary.stage!.pack.rawBytes);
  assert.equal([summary.stage!.pack.skipped.objects, summary.replaced], [0, null]);
  assert.match(summary.version, /^2025-11-20-[0-9a-f]{16}$/);
  const pointer = await pointerOf(location);
  assert.equal([pointer?.version, pointer?.previous, pointer?.shards.length, pointer?.shards[0]?.archives], [summary.version, [], 1, 1]);
  assert.equal(await assertVersionHolds(location, nights[0]!), SMALL_VERSION);
});

test('publishing the live tree again sends nothing and leaves the pointer as it was', async () => {
  const location = freshLocation();
  await publish(nights[0]!, location);
  const before = await pointerOf(location);
  const proxy = await startFaultyProxy(s3.endpoint, () => 'forward');
  try {
    const again = await publish(nights[0]!, location, proxy.endpoint);
    assert.ok(again.alreadyLive);
    assert.equal(again.stage, null);
    assert.equal(
      proxy.requests.map((request) => request.method),
      ['GET'],
      'one read of the pointer, nothing written',
    );
  } finally {
    await proxy.close();
  }
  assert.equal(await pointerOf(location), before);
});

test('a tree edited after its publish is refused even though its version is stored already (live, or staged and rolled back from)', async () => {
  const location = freshLocation();
  const copies = nights.slice(0, 2).map((night) => {
    const out = path.join(tempDir('ws-edited-'), 'public');
    fs.cpSync(fs.realpathSync(night.out), out, { recursive: true });
    return out;
  });
  const first = await runPublish({ ...options, dir: copies[0]!, to: to(location) });
  await runPublish({ ...options, dir: copies[1]!, to: to(location), accept: ['unpriced'] });
  await runPublish({ ...options, rollback: true, to: to(location) });
  const live = (await pointerOf(location))!.version;
  assert.match(first, new RegExp(`published version ${live} `));
  const edited = `v1/address/${A.toLowerCase()}/portfolio.json`;
  for (const copy of copies) {
    const file = path.join(copy, ...edited.split('/'));
    // One digit changed, as a hand edit would.
    fs.writeFileSync(
      file,
      fs.readFileSync(file, 'utf8').replace(/\d/, (digit) => String((Number(digit) + 1) % 10)),
    );
    const refused = await runCli([
      'publish',
      '--dir',
      copy,
      '--to',
      to(location),
      '--endpoint',
      s3.endpoint,
      '--progress',
      'quiet',
      '--accept',
      'unpriced',
    ]);
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(
      refused.stderr,
      new RegExp(
        `is not the tree its build wrote \\(1 problem; nothing was sent and the live version is untouched\\):\\n  - ${edited}: edited since the build`,
      ),
    );
    assert.equal(refused.stdout, '');
    assert.equal((await pointerOf(location))?.version, live);
  }
});

test('the next night is a new version of a handful of objects; the one before stays for --rollback', async () => {
  const location = freshLocation();
  const first = await publish(nights[0]!, location);
  const proxy = await startFaultyProxy(s3.endpoint, () => 'forward');
  try {
    const second = await publish(nights[1]!, location, proxy.endpoint);
    assert.equal(writeRequests(proxy.requests).length, 5);
    assert.ok(writeRequests(proxy.requests).length <= nightBound(proxy.requests));
    assert.match(second.version, /^2025-11-21-/);
    assert.equal(second.replaced, first.version);
    const pointer = await pointerOf(location);
    assert.equal([pointer?.version, pointer?.previous], [second.version, [first.version]]);
  } finally {
    await proxy.close();
  }
  await assertVersionHolds(location, nights[1]!);
});

test('throttling (503 SlowDown, 429) and a dropped connection are retried, and the publish completes', async () => {
  const location = freshLocation();
  const faults: Record<number, Fault> = { 3: 'drop', 5: 'slow-down', 7: 'too-many-requests' };
  const proxy = await startFaultyProxy(s3.endpoint, (n) => faults[n] ?? 'forward');
  try {
    const summary = await publish(nights[0]!, location, proxy.endpoint, 4);
    assert.equal(summary.stage!.pack.files, publishedFiles(nights[0]!).size);
    assert.equal(proxy.requests.filter((request) => request.fault !== 'forward').length, 3);
  } finally {
    await proxy.close();
  }
  await assertVersionHolds(location, nights[0]!);
});

test('a publish whose connections drop for good leaves the live version, exits 5, and resumes when run again', async () => {
  const location = freshLocation();
  const first = await publish(nights[0]!, location);
  // The archive goes; then every connection drops.
  let puts = 0;
  const proxy = await startFaultyProxy(s3.endpoint, (_, request) => (request.method === 'PUT' && ++puts > 1 ? 'drop' : 'forward'));
  try {
    const failed = await runCli([
      'publish',
      '--dir',
      nights[1]!.out,
      '--to',
      to(location),
      '--endpoint',
      proxy.endpoint,
      '--max-attempts',
      '2',
      '--concurrency',
      '1',
      '--progress',
      'quiet',
    ]);
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
    assert.equal(
      [resumed.stage!.pack.skipped.objects, resumed.stage!.pack.sent.objects],
      [1, 1],
      'the archive stored already, the index sent',
    );
    assert.not.ok(
      watched.requests.some((request) => request.method === 'PUT' && request.url.includes('.tar')),
      'the archive is not sent again',
    );
    // The pointer is the last object written.
    const writes = watched.requests.filter((request) => request.method === 'PUT');
    assert.ok(isPointer(writes.at(-1)!.url));
    assert.equal(writes.filter((request) => isPointer(request.url)).length, 1);
  } finally {
    await watched.close();
  }
  await assertVersionHolds(location, nights[1]!);
});

test('an index that cannot be stored fails the publish: the pointer is never written, and a rerun sends only the index', async () => {
  const location = freshLocation();
  const proxy = await startFaultyProxy(s3.endpoint, (_, request) =>
    request.method === 'PUT' && request.url!.split('?')[0]!.endsWith('/index') ? 'drop' : 'forward',
  );
  try {
    const error = await thrown(() => publish(nights[0]!, location, proxy.endpoint, 2));
    assert.equal((error as UserError).exitCode, EXIT_STORAGE);
    assert.match(error.message, /uploading test-\d+\/versions\/2025-11-20-[0-9a-f]{16}\/pack\/1-of-1\/index failed after 2 attempts/);
    assert.ok(error.cause, 'the S3 error is kept as the cause');
    assert.not.ok(proxy.requests.some((request) => request.method === 'PUT' && isPointer(request.url)));
  } finally {
    await proxy.close();
  }
  assert.equal(await pointerOf(location), null);
  const rerun = await publish(nights[0]!, location);
  assert.equal([rerun.stage!.pack.skipped.objects, rerun.stage!.pack.sent.objects], [1, 1]);
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
        if (!sent && text.includes('pack shard')) {
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
    if (request.method !== 'PUT' || ++puts <= 1) return 'forward';
    child?.kill('SIGKILL');
    return 'stall';
  });
  try {
    const killed = await runCli(
      ['publish', '--dir', nights[1]!.out, '--to', to(location), '--endpoint', proxy.endpoint, '--concurrency', '1', '--progress', 'lines'],
      {
        onStderr: (_, running) => {
          child = running;
        },
      },
    );
    assert.equal(killed.code, null, 'killed by the signal');
  } finally {
    await proxy.close();
  }
  assert.equal((await pointerOf(location))?.version, first.version);
  const resumed = await publish(nights[1]!, location);
  assert.equal([resumed.stage!.pack.skipped.objects, resumed.stage!.pack.sent.objects], [1, 1], 'only what is missing is sent');
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
  assert.equal(pointer?.shards, (await pointerOf(location))?.shards);
  await assertVersionHolds(location, nights[0]!);

  const none = await thrown(() => runPublish({ ...options, rollback: true, to: to(location) }));
  assert.equal((none as UserError).exitCode, 1);
  assert.match(none.message, new RegExp(`has no version before ${first.version}`));
  const nothing = await thrown(() => runPublish({ ...options, rollback: true, to: `${to(location)}-empty` }));
  assert.equal((nothing as UserError).exitCode, 1);
  assert.match(nothing.message, /nothing is published/);

  // Publishing the rolled-back tree again finds it staged and only switches back.
  const again = await publish(nights[1]!, location);
  assert.equal([again.version, again.stage!.alreadyStaged, again.stage!.pack.sent.objects], [second.version, true, 0]);
  assert.equal((await pointerOf(location))?.previous, [first.version]);
  await assertVersionHolds(location, nights[1]!);
});

test('--keep N keeps the N newest versions of the history and removes older and abandoned ones', async () => {
  const location = freshLocation();
  // An abandoned publish of an older night: stored objects, never live.
  // The pointer, the shard's record and folder read, the archive stored; then the connections drop.
  const dropping = await startFaultyProxy(s3.endpoint, (n) => (n <= 4 ? 'forward' : 'drop'));
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
    assert.equal(left.KeyCount, 0, "the removed version's archives are gone whole");
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
    assert.equal(Object.keys(pointer), ['version', 'previous', 'publishedAt', 'shards']);
    assert.equal(Object.keys(pointer.shards[0]), ['archives', 'slots', 'length', 'window']);
    assert.equal(pointer.version, summary.version);
  } finally {
    storage.destroy();
  }
});

test.run();
