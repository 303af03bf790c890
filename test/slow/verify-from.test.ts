/**
 * `verify --from`: a version published to s3rver proven in the store, whole or by a sample; each
 * kind of object (the pointer, the commit, a shard's manifest, an index, an archive) deleted,
 * truncated or altered in the store is named with what was expected and what was found (exit 1).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { eightWalletNight, tempDir, thrown, writeInputs } from '../helpers/fixtures.ts';
import { runCli } from '../helpers/process.ts';
import { BUCKET, S3_CREDENTIALS, startS3Server, type RunningS3 } from '../helpers/s3-server.ts';
import { FAULT_KINDS, startFaultProxy } from '../helpers/fault-proxy.ts';
import { buildSnapshot } from '../../build/index.ts';
import { resolveBuildConfig } from '../../build/config.ts';
import { UserError } from '../../core/errors.ts';
import { runPublish } from '../../publish/index.ts';
import { draw, runVerifyFrom } from '../../publish/scrub.ts';
import { VerifySummaryJsonSchema } from '../../schemas/verify-summary.ts';

Object.assign(process.env, S3_CREDENTIALS, { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' });

const tables = eightWalletNight();
const input = await writeInputs(path.join(tempDir(), 'input'), tables);
const tree = path.join(tempDir(), 'public');
await buildSnapshot(resolveBuildConfig({ input, out: tree, now: '2025-11-21T17:00:00Z', progress: 'quiet', threads: 1 }));
const shardTrees: string[] = [];
for (const shard of ['1/2', '2/2']) {
  shardTrees.push(path.join(tempDir(), 'public'));
  await buildSnapshot(
    resolveBuildConfig({ input, out: shardTrees.at(-1)!, now: '2025-11-22T17:00:00Z', shard, progress: 'quiet', threads: 1 }),
  );
}

let s3: RunningS3;
let direct: S3Client;
let prefixes = 0;

test.before(async () => {
  s3 = await startS3Server();
  direct = new S3Client({ endpoint: s3.endpoint, forcePathStyle: true, region: 'us-east-1' });
});
test.after(async () => {
  direct.destroy();
  await s3.close();
});

/** The tree published under a prefix of its own; its version id and the keys of its objects. */
async function published() {
  const prefix = `scrub-${++prefixes}`;
  const text = await runPublish({
    dir: tree,
    to: `s3://${BUCKET}/${prefix}`,
    endpoint: s3.endpoint,
    concurrency: 4,
    maxAttempts: 2,
    progress: 'quiet',
    accept: ['unpriced'],
  });
  const version = /published version (\S+)/.exec(text)![1]!;
  const under = `${prefix}/versions/${version}/`;
  return {
    prefix,
    version,
    from: `s3://${BUCKET}/${prefix}`,
    keys: {
      pointer: `${prefix}/live.json`,
      commit: `${under}_publish/commit.json`,
      record: `${under}_publish/shards/1-of-1.sha256.gz`,
      index: `${under}pack/1-of-1/index`,
      archive: `${under}pack/1-of-1/00001.tar`,
    },
  };
}

const scrub = (from: string, extra: { sample?: number; seed?: number; version?: string } = {}) =>
  runVerifyFrom({ from, endpoint: s3.endpoint, progress: 'quiet', ...extra });

async function bytesOf(key: string): Promise<Buffer> {
  const answer = await direct.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return Buffer.from(await answer.Body!.transformToByteArray());
}
const put = (key: string, body: Uint8Array | string) => direct.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body }));
const remove = (key: string) => direct.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: key }));

/** The figures of a summary: objects, bytes and requests. */
function costOf(text: string): { objects: number; bytes: string; requests: number } {
  const match = /read (\d+) objects? \(([^)]+)\) in (\d+) requests?/.exec(text)!;
  return { objects: Number(match[1]), bytes: match[2]!, requests: Number(match[3]) };
}

test('a version as published passes: every archive read whole, every member against the index and the manifest', async () => {
  const { from, version } = await published();
  const text = await scrub(from);
  assert.match(
    text,
    new RegExp(
      `^verified version ${version} \\(live\\) at ${from}: the pointer, the commit, each shard's manifest and index \\(1 shard, \\d+ members, each in its index and its manifest alike\\), 1 archive read whole\\n`,
    ),
  );
  const members = Number(/(\d+) members, each/.exec(text)![1]);
  assert.ok(members > 20, text);
  assert.match(text, new RegExp(`\\nchecked every member of its 1 archive \\(${members}\\)`));
  // The pointer, the commit, the record, the index, the archive: five objects, one request each.
  assert.equal(costOf(text).objects, 5);
  assert.equal(costOf(text).requests, 5);

  // The real process: exit 0, the same summary, and as JSON (--summary-json) what it proved and read.
  const summaryFile = path.join(tempDir(), 'verify.json');
  const cli = await runCli(['verify', '--from', from, '--endpoint', s3.endpoint, '--progress', 'quiet', '--summary-json', summaryFile]);
  assert.equal(cli.code, 0, cli.stderr);
  assert.match(cli.stdout, /^verified version /);
  const json = VerifySummaryJsonSchema.parse(JSON.parse(fs.readFileSync(summaryFile, 'utf8')));
  assert.equal([json.ok, json.target, json.shard, json.failures, json.files], [true, from, null, [], members]);
  assert.equal(
    { ...json.store!, bytesRead: 0 },
    { version, live: true, shards: 1, archives: 1, members, membersRead: members, objectsRead: 5, bytesRead: 0, requests: 5, sample: null },
  );
  const refused = await runCli(['verify', '--from', from, '--dir', tree]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /--from proves a version in object storage and takes no --dir or --shard/);
});

test('--sample N reads N members by range, fewer bytes than the whole; --seed draws the same members again', async () => {
  const { from } = await published();
  const whole = costOf(await scrub(from));
  const sampled = await scrub(from, { sample: 3, seed: 42 });
  assert.match(sampled, /\nchecked 3 members of \d+ drawn at random \(seed 42; --seed 42 draws them again\), each read by range/);
  assert.match(sampled, / 1 archive listed, each of the length its index implies\n/);
  const cost = costOf(sampled);
  // The pointer, the commit, the record, the index, a listing and three range reads.
  assert.equal([cost.objects, cost.requests], [7, 8]);
  const bytes = (text: string) =>
    Number(/^(\d+(?:\.\d+)?)/.exec(text)![1]) * (text.endsWith('KiB') ? 1024 : text.endsWith('MiB') ? 1024 * 1024 : 1);
  assert.ok(bytes(cost.bytes) < bytes(whole.bytes), `${cost.bytes} read for the sample, ${whole.bytes} for the whole`);
  assert.equal(draw(100, 5, 42), draw(100, 5, 42));
  assert.equal(new Set(draw(10, 10, 7)).size, 10, 'a draw of every member takes each once');
  const unseeded = await scrub(from, { sample: 2 });
  assert.match(unseeded, /\(seed \d+; --seed \d+ draws them again\)/);
});

/** The refusal of a scrub of a version damaged by `damage`: exit 1, and the problems listed. */
async function refusal(
  damage: (keys: Awaited<ReturnType<typeof published>>['keys']) => Promise<unknown>,
  extra: { sample?: number; seed?: number } = {},
): Promise<string> {
  const { from, keys } = await published();
  await damage(keys);
  const error = await thrown(() => scrub(from, extra));
  assert.instance(error, UserError, error.stack);
  assert.equal((error as UserError).exitCode, 1, error.message);
  return error.message;
}

test('each kind of object deleted is named, with what was expected', async () => {
  assert.match(
    await refusal((keys) => remove(keys.pointer)),
    /^verify --from s3:\/\/snapshots\/scrub-\d+: nothing is published there \(no scrub-\d+\/live.json\)/,
  );
  assert.match(
    await refusal((keys) => remove(keys.commit)),
    /\n {2}- scrub-\d+\/versions\/\S+\/_publish\/commit.json: missing \(expected the commit of the live version \S+\)/,
  );
  assert.match(
    await refusal((keys) => remove(keys.record)),
    /\n {2}- scrub-\d+\/versions\/\S+\/_publish\/shards\/1-of-1.sha256.gz: missing \(expected shard 1 of 1's manifest\)/,
  );
  assert.match(
    await refusal((keys) => remove(keys.index)),
    /\n {2}- scrub-\d+\/versions\/\S+\/pack\/1-of-1\/index: missing \(expected shard 1's index of \d+ bytes\)/,
  );
  assert.match(
    await refusal((keys) => remove(keys.archive)),
    /\n {2}- scrub-\d+\/versions\/\S+\/pack\/1-of-1\/00001.tar: missing \(expected an archive of \d+ bytes holding \d+ members\)/,
  );
  assert.match(
    await refusal((keys) => remove(keys.archive), { sample: 2, seed: 1 }),
    /\/00001.tar: missing \(expected an archive of \d+ bytes/,
  );
});

test('each kind of object truncated is named, with the length expected and the length found', async () => {
  const truncate = async (key: string) => put(key, (await bytesOf(key)).subarray(0, 1000));
  assert.match(
    await refusal(async (keys) => put(keys.pointer, (await bytesOf(keys.pointer)).subarray(0, 100))),
    /scrub-\d+\/live.json is not a pointer written by this release of wallet-snapshot publish/,
  );
  assert.match(
    await refusal((keys) => truncate(keys.index)),
    /\/pack\/1-of-1\/index: truncated \(expected \d+ bytes, \d+ slots; found 1000\)/,
  );
  assert.match(
    await refusal((keys) => truncate(keys.archive)),
    /\/pack\/1-of-1\/00001.tar: truncated \(expected \d+ bytes, as its index implies; found 1000\)/,
  );
  assert.match(
    await refusal((keys) => truncate(keys.archive), { sample: 1, seed: 1 }),
    /\/00001.tar: truncated \(expected \d+ bytes, as its index implies; found 1000\)/,
  );
  assert.match(
    await refusal(async (keys) => put(keys.record, zlib.gzipSync(zlib.gunzipSync(await bytesOf(keys.record)).subarray(0, 300)))),
    /\/1-of-1.sha256.gz: altered \(expected its manifest's sha256 [0-9a-f]{64}, as the commit records it; found [0-9a-f]{64}\)/,
  );
});

test("each kind of object altered is named: a member's bytes, its header, an index entry, the commit", async () => {
  const { keys: probe } = await published();
  const original = await bytesOf(probe.archive);
  // The first member's data starts after its header: one byte of it changed.
  const flipped = (at: number) => async (keys: typeof probe) => {
    const bytes = Buffer.from(original);
    bytes[at] = bytes[at]! ^ 0xff;
    await put(keys.archive, bytes);
  };
  assert.match(
    await refusal(flipped(512 + 20)),
    /\/00001.tar: altered \((expected \S+ with sha256 [0-9a-f]{64}, as the index and the manifest record it; found [0-9a-f]{64}|the member \S+ is not gzip: .*)\)/,
  );
  assert.match(
    await refusal(flipped(0)),
    /\/00001.tar: altered \(expected the member \S+\.gz of \d+ bytes at byte 0; found no tar header\)/,
  );
  // The index recording another sha256 than the manifest for a file.
  assert.match(
    await refusal(async (keys) => {
      const index = await bytesOf(keys.index);
      // The first non-empty slot's recorded sha256, changed.
      for (let at = 0; at < index.length; at += 64) {
        if (index.readUInt16LE(at + 8) !== 0) {
          index[at + 40] = index[at + 40]! ^ 0x01;
          break;
        }
      }
      await put(keys.index, index);
    }),
    /\/pack\/1-of-1\/index: the entry of \S+ records sha256 [0-9a-f]{64}; the manifest \S+ records [0-9a-f]{64}/,
  );
  assert.match(
    await refusal(async (keys) => {
      const commit = JSON.parse((await bytesOf(keys.commit)).toString('utf8'));
      commit.records[0].sha256 = '0'.repeat(64);
      await put(keys.commit, JSON.stringify(commit));
    }),
    /\/1-of-1.sha256.gz: altered \(expected its manifest's sha256 0{64}, as the commit records it; found [0-9a-f]{64}\)/,
  );
});

test('a sharded version is proven shard by shard, each with its copy of the shared files; --version proves the one before it', async () => {
  const { from, version: before } = await published();
  const common = {
    to: from,
    endpoint: s3.endpoint,
    concurrency: 4,
    maxAttempts: 2,
    progress: 'quiet' as const,
    accept: ['unpriced' as const],
  };
  for (const dir of shardTrees) await runPublish({ ...common, dir });
  const committed = /committed version (\S+)/.exec(await runPublish({ ...common, commit: true }))![1]!;
  const text = await scrub(from);
  assert.match(
    text,
    new RegExp(`^verified version ${committed} \\(live\\) at ${from}: .*\\(2 shards, \\d+ members, .*\\), 2 archives read whole\\n`),
  );
  assert.match(await scrub(from, { version: before }), new RegExp(`^verified version ${before} at ${from}: .*\\(1 shard, `));
  assert.match(await scrub(from, { sample: 5, seed: 9 }), /\nchecked 5 members of \d+ drawn at random/);
});

test('--version proves a committed version other than the live one, and refuses one that never went live', async () => {
  const { from, version } = await published();
  const text = await scrub(from, { version });
  assert.match(text, new RegExp(`^verified version ${version} \\(live\\)`));
  const error = await thrown(() => scrub(from, { version: '2025-01-01-0000000000000000' }));
  assert.equal((error as UserError).exitCode, 1);
  assert.match(
    error.message,
    /version 2025-01-01-0{16} has no commit \(\S+\/_publish\/commit.json is missing\): it was never made live, or is being removed/,
  );
});

test('through a store that fails 30% of its requests (every kind of fault), the scrub retries and proves the version, whole and sampled', async () => {
  const { from, version } = await published();
  const proxy = await startFaultProxy(s3.endpoint, { kinds: FAULT_KINDS, share: 0.3, seed: 5, stallMs: 1_500 });
  try {
    for (const extra of [{}, { sample: 20, seed: 3 }]) {
      const text = await runVerifyFrom({ from, endpoint: proxy.endpoint, progress: 'quiet', stallTimeout: 0.3, ...extra });
      assert.match(text, new RegExp(`^verified version ${version} `));
    }
    assert.ok(
      proxy.requests.some((request) => request.fault !== null),
      JSON.stringify(proxy.faults()),
    );
  } finally {
    await proxy.close();
  }
});

test.run();
