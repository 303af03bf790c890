/**
 * `publish` in every form (a night, a shard's stage and `--commit`, `--rollback`, `--keep`) against
 * a flaky store: a seeded proxy (test/helpers/fault-proxy.ts) in front of s3rver answers a share of
 * the requests with a 500, a 503 SlowDown, a connection reset (before or after the store acted),
 * a body cut short, or a stall longer than the client's stall timeout. Each command completes, or
 * exits 5 naming the store's error and completes when run again without sending an archive that
 * is stored whole. All along, a watcher reads `live.json` straight from s3rver every 50 ms and
 * checks that the version it names is complete (its commit, each shard's index and archives).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { eightWalletNight, tempDir, writeInputs } from '../helpers/fixtures.ts';
import { runCli } from '../helpers/process.ts';
import { BUCKET, S3_CREDENTIALS, startS3Server, type RunningS3 } from '../helpers/s3-server.ts';
import { FAULT_KINDS, startFaultProxy, type FaultKind, type FaultPlan, type RunningFaultProxy } from '../helpers/fault-proxy.ts';
import { buildSnapshot } from '../../build/index.ts';
import { resolveBuildConfig } from '../../build/config.ts';
import { EXIT_STORAGE, UserError } from '../../core/errors.ts';
import { runPublish, type PublishCommandOptions } from '../../publish/index.ts';
import { parseLocation, type Location } from '../../publish/location.ts';
import { parsePointer } from '../../tree/live-pointer.ts';

Object.assign(process.env, S3_CREDENTIALS, { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' });

const tables = eightWalletNight();
const input = await writeInputs(path.join(tempDir(), 'input'), tables);
async function buildTree(now: string, shard?: string): Promise<string> {
  const out = path.join(tempDir(), 'public');
  await buildSnapshot(resolveBuildConfig({ input, out, now, shard, progress: 'quiet', threads: 1 }));
  return out;
}
const nights = [await buildTree('2025-11-21T17:00:00Z'), await buildTree('2025-11-22T17:00:00Z'), await buildTree('2025-11-23T17:00:00Z')];
const shards = [await buildTree('2025-11-24T17:00:00Z', '1/2'), await buildTree('2025-11-24T17:00:00Z', '2/2')];

/** The client gives up on a silent connection after 0.3 s; the proxy's stalls last 1.5 s (10 s in the field). */
const STALL_TIMEOUT_SECONDS = 0.3;
const STALL_MS = 1_500;

let s3: RunningS3;
let direct: S3Client;
let prefixes = 0;
const freshLocation = (): Location => parseLocation(`s3://${BUCKET}/faults-${++prefixes}`);
const to = (location: Location) => `s3://${location.bucket}/${location.prefix}`;

test.before(async () => {
  s3 = await startS3Server();
  direct = new S3Client({ endpoint: s3.endpoint, forcePathStyle: true, region: 'us-east-1', maxAttempts: 1 });
});
test.after(async () => {
  direct.destroy();
  await s3.close();
});

/** These nights hold no prices, which the night's guard refuses (test/night-guard.test.ts); accepted here. */
function publishThrough(
  proxy: RunningFaultProxy,
  location: Location,
  extra: Partial<PublishCommandOptions>,
  maxAttempts = 8,
): Promise<string> {
  return runPublish({
    concurrency: 4,
    maxAttempts,
    stallTimeout: STALL_TIMEOUT_SECONDS,
    progress: 'quiet',
    endpoint: proxy.endpoint,
    accept: ['unpriced'],
    to: to(location),
    ...extra,
  });
}

/** Every key of the store under a prefix with its ETag, read straight from s3rver. */
async function storedObjects(prefix: string): Promise<Map<string, { size: number; etag: string }>> {
  const objects = new Map<string, { size: number; etag: string }>();
  let token: string | undefined;
  do {
    const page = await direct.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix, ContinuationToken: token }));
    for (const object of page.Contents ?? []) objects.set(object.Key!, { size: object.Size ?? 0, etag: object.ETag ?? '' });
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return objects;
}

/**
 * Reads the pointer from the store's side every 50 ms and checks that the version it names is
 * complete: its commit, and for each shard the pointer names, its index (64 bytes a slot) and
 * every archive. Returns what it saw when stopped.
 */
function watchPointer(location: Location): {
  stop(): Promise<{ reads: number; versions: string[]; incomplete: string[]; watchErrors: number }>;
} {
  const seen = { reads: 0, versions: [] as string[], incomplete: [] as string[], watchErrors: 0 };
  let running: Promise<void> = Promise.resolve();
  const check = async () => {
    let text = '';
    let pointer = null;
    // s3rver takes an object's length and opens its file in two steps, so a read while the pointer
    // is replaced can be the new bytes cut at the old length (S3 never answers so): read again.
    for (let read = 1; read <= 3 && !pointer; read++) {
      try {
        const answer = await direct.send(new GetObjectCommand({ Bucket: BUCKET, Key: `${location.prefix}/live.json` }));
        text = await answer.Body!.transformToString();
      } catch (error) {
        if ((error as { name?: string }).name === 'NoSuchKey') return;
        throw error;
      }
      pointer = parsePointer(text);
    }
    seen.reads++;
    if (!pointer) {
      seen.incomplete.push(`unreadable pointer: ${text.slice(0, 60)}`);
      return;
    }
    if (seen.versions.at(-1) !== pointer.version) seen.versions.push(pointer.version);
    const prefix = `${location.prefix}/versions/${pointer.version}/`;
    const stored = await storedObjects(prefix);
    const missing: string[] = [];
    if (!stored.has(`${prefix}_publish/commit.json`)) missing.push('_publish/commit.json');
    pointer.shards.forEach((shard, k) => {
      const folder = `${prefix}pack/${k + 1}-of-${pointer.shards.length}/`;
      if (stored.get(`${folder}index`)?.size !== shard.length * 64) missing.push(`${folder}index`);
      for (let archive = 1; archive <= shard.archives; archive++)
        if (!stored.has(`${folder}${String(archive).padStart(5, '0')}.tar`)) missing.push(`archive ${archive}`);
    });
    if (missing.length > 0) seen.incomplete.push(`${pointer.version}: ${missing.join(', ')}`);
  };
  const timer = setInterval(() => {
    // A read of the watcher's own that fails (s3rver reading a file being replaced) checks nothing: the next one does.
    running = running.then(check).catch(() => {
      seen.watchErrors++;
    });
  }, 50);
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
      return seen;
    },
  };
}

/**
 * The versions the watcher saw are the ones the commands made live, in their order, and the last
 * is the last made live (a state shorter than 50 ms may pass unseen).
 */
function assertSeenInOrder(versions: string[], days: string[]): void {
  const seen = versions.map((version) => version.slice(0, 10));
  let at = 0;
  for (const day of seen) {
    while (at < days.length && days[at] !== day) at++;
    assert.ok(at < days.length, `the pointer named ${seen.join(', ')}, expected in the order ${days.join(', ')}`);
    at++;
  }
  assert.equal(seen.at(-1), days.at(-1));
  assert.ok(seen.length >= 3, `the watcher saw ${seen.join(', ')}`);
}

/** The archives' keys a proxy saw stored (PUT and forwarded). */
const archivePuts = (proxy: RunningFaultProxy, from = 0) =>
  proxy.requests
    .slice(from)
    .filter((request) => request.method === 'PUT' && request.url.split('?')[0]!.endsWith('.tar'))
    .map((request) => request.url.split('?')[0]!.slice(`/${BUCKET}/`.length));

/**
 * Runs a command until it completes: each failure must be exit 5 naming the store's error, and
 * each rerun must send no archive that was stored whole (as the completed run left it) before it.
 */
async function untilComplete(
  proxy: RunningFaultProxy,
  location: Location,
  run: () => Promise<string>,
  runs = 6,
): Promise<{ text: string; failures: string[] }> {
  const failures: string[] = [];
  const before: Map<string, { size: number; etag: string }>[] = [];
  const from: number[] = [];
  for (let attempt = 1; attempt <= runs; attempt++) {
    before.push(await storedObjects(`${location.prefix}/versions/`));
    from.push(proxy.requests.length);
    try {
      const text = await run();
      const final = await storedObjects(`${location.prefix}/versions/`);
      // A rerun sends no archive that an earlier run had stored whole (the bytes the night ends with).
      for (let r = 1; r < before.length; r++) {
        for (const key of new Set(archivePuts(proxy, from[r]))) {
          const stored = before[r]!.get(key);
          assert.not.ok(stored && stored.etag === final.get(key)?.etag, `run ${r + 1} sent ${key} again, stored whole before it`);
        }
      }
      return { text, failures };
    } catch (error) {
      assert.instance(error, UserError, (error as Error).stack);
      assert.equal((error as UserError).exitCode, EXIT_STORAGE, (error as Error).message);
      assert.match((error as Error).message, /failed after \d+ attempts: \S+/);
      failures.push((error as Error).message);
    }
  }
  throw new Error(`no run of ${runs} completed: ${failures.join('\n')}`);
}

const isPointerRead = (request: { method?: string; url?: string }) =>
  request.method === 'GET' && request.url!.split('?')[0]!.endsWith('/live.json');

const ALL_FAULTS: FaultPlan = { kinds: FAULT_KINDS, share: 0.3, seed: 1, stallMs: STALL_MS };

test('every form of publish completes through a store that fails 30% of its requests, every kind of fault, and the pointer always names a complete version', async () => {
  const location = freshLocation();
  const proxy = await startFaultProxy(s3.endpoint, ALL_FAULTS);
  const watch = watchPointer(location);
  let seen: Awaited<ReturnType<typeof watch.stop>>;
  try {
    const first = await untilComplete(proxy, location, () => publishThrough(proxy, location, { dir: nights[0]! }));
    assert.match(first.text, /^published version 2025-11-20-/);
    const second = await untilComplete(proxy, location, () => publishThrough(proxy, location, { dir: nights[1]! }));
    assert.match(second.text, /^published version 2025-11-21-/);
    await untilComplete(proxy, location, () => publishThrough(proxy, location, { dir: nights[2]! }));
    const back = await untilComplete(proxy, location, () => publishThrough(proxy, location, { rollback: true }));
    assert.match(back.text, /^rolled back .*: live version 2025-11-21-/);
    for (const shard of shards) {
      const staged = await untilComplete(proxy, location, () => publishThrough(proxy, location, { dir: shard }));
      assert.match(staged.text, /^staged shard \d of 2 of version 2025-11-23-/);
    }
    const committed = await untilComplete(proxy, location, () => publishThrough(proxy, location, { commit: true }));
    assert.match(committed.text, /^committed version 2025-11-23-\S+ \(2 shards/);
    const sharded = /committed version (\S+)/.exec(committed.text)![1]!;
    const kept = await untilComplete(proxy, location, () => publishThrough(proxy, location, { commit: sharded, keep: 2 }));
    assert.match(kept.text, /kept 2 versions .* removed 2 versions/);
    const faults = proxy.faults();
    for (const kind of FAULT_KINDS) assert.ok((faults[kind] ?? 0) > 0, `no ${kind} among ${JSON.stringify(faults)}`);
  } finally {
    seen = await watch.stop();
    await proxy.close();
  }
  assert.equal(seen.incomplete, [], 'the pointer named an incomplete version');
  assert.ok(seen.reads > 10, `the pointer was read ${seen.reads} times`);
  assertSeenInOrder(seen.versions, ['2025-11-20', '2025-11-21', '2025-11-22', '2025-11-21', '2025-11-23']);
});

test('a store that fails more than the attempts allow: exit 5 naming its error, the live version kept, and reruns complete the night without sending a stored archive again', async () => {
  const location = freshLocation();
  const proxy = await startFaultProxy(s3.endpoint, { ...ALL_FAULTS, share: 0 });
  const watch = watchPointer(location);
  let seen: Awaited<ReturnType<typeof watch.stop>>;
  try {
    await publishThrough(proxy, location, { dir: nights[0]! });
    // Two attempts a request, a fifth of them failing: about one run in two fails somewhere.
    proxy.replan({ share: 0.2, seed: 7 });
    const failures: string[] = [];
    const complete = async (run: () => Promise<string>) => {
      const done = await untilComplete(proxy, location, run, 15);
      failures.push(...done.failures);
      return done.text;
    };
    await complete(() => publishThrough(proxy, location, { dir: nights[1]! }, 2));
    for (const shard of shards) await complete(() => publishThrough(proxy, location, { dir: shard }, 2));
    const sharded = /committed version (\S+)/.exec(await complete(() => publishThrough(proxy, location, { commit: true }, 2)))![1]!;
    await complete(() => publishThrough(proxy, location, { rollback: true }, 2));
    await complete(() => publishThrough(proxy, location, { commit: sharded, keep: 2 }, 2));
    assert.ok(failures.length >= 1, `the store failed ${failures.length} runs`);
  } finally {
    seen = await watch.stop();
    await proxy.close();
  }
  assert.equal(seen.incomplete, []);
  assertSeenInOrder(seen.versions, ['2025-11-20', '2025-11-21', '2025-11-23', '2025-11-21', '2025-11-23']);
});

test('a pointer write whose answers are all lost (stored, then the connection reset) is read back: the rollback is done once, not again', async () => {
  const location = freshLocation();
  const isPointerWrite = (request: { method?: string; url?: string }) =>
    request.method === 'PUT' && request.url!.split('?')[0]!.endsWith('/live.json');
  const proxy = await startFaultProxy(s3.endpoint, { kinds: ['reset-after'], share: 0, seed: 1, applies: isPointerWrite });
  try {
    for (const night of nights) await publishThrough(proxy, location, { dir: night }, 2);
    proxy.replan({ share: 1 });
    const from = proxy.requests.length;
    const back = await publishThrough(proxy, location, { rollback: true }, 2);
    assert.match(back, /^rolled back .*: live version 2025-11-21-\S+ \(was 2025-11-22-/);
    assert.equal(
      proxy.requests
        .slice(from)
        .filter(isPointerWrite)
        .map((request) => request.fault),
      ['reset-after', 'reset-after'],
    );
    const pointer = parsePointer(
      await (await direct.send(new GetObjectCommand({ Bucket: BUCKET, Key: `${location.prefix}/live.json` }))).Body!.transformToString(),
    );
    assert.equal([pointer?.version.slice(0, 10), pointer?.previous.map((version) => version.slice(0, 10))], ['2025-11-21', ['2025-11-20']]);
  } finally {
    await proxy.close();
  }
});

/** The CLI against a proxy that always answers `kind` to the requests `applies` accepts. */
async function failingCli(kind: FaultKind, applies: FaultPlan['applies'], args: string[]) {
  const location = freshLocation();
  const proxy = await startFaultProxy(s3.endpoint, { kinds: [kind], share: 1, seed: 1, stallMs: STALL_MS, applies });
  try {
    const result = await runCli([
      'publish',
      ...args,
      '--to',
      to(location),
      '--endpoint',
      proxy.endpoint,
      '--max-attempts',
      '2',
      '--stall-timeout',
      String(STALL_TIMEOUT_SECONDS),
      '--progress',
      'quiet',
      '--accept',
      'unpriced',
    ]);
    return { result, proxy, location };
  } finally {
    await proxy.close();
  }
}

test("a body cut short on the pointer's read is read again as a whole; when it always is, exit 5 naming the fault", async () => {
  const location = freshLocation();
  const proxy = await startFaultProxy(s3.endpoint, { kinds: ['truncate'], share: 0, seed: 3, applies: isPointerRead });
  try {
    await publishThrough(proxy, location, { dir: nights[0]! });
    // The next two reads of the pointer cut short: it is read again until it arrives whole.
    let cut = 2;
    proxy.replan({ share: 1, applies: (request) => isPointerRead(request) && cut-- > 0 });
    const from = proxy.requests.length;
    assert.match(await publishThrough(proxy, location, { dir: nights[1]! }), /^published version 2025-11-21-/);
    assert.equal(
      proxy.requests
        .slice(from)
        .filter(isPointerRead)
        .map((request) => request.fault),
      ['truncate', 'truncate', null],
    );
    // Every read cut short: two attempts, then exit 5, the live version kept.
    proxy.replan({ applies: isPointerRead });
    const pointerReads = proxy.requests.filter(isPointerRead).length;
    const args = [
      'publish',
      '--dir',
      nights[2]!,
      '--to',
      to(location),
      '--endpoint',
      proxy.endpoint,
      '--max-attempts',
      '2',
      '--progress',
      'quiet',
      '--accept',
      'unpriced',
    ];
    const result = await runCli(args);
    assert.equal(result.code, EXIT_STORAGE, result.stderr);
    assert.match(
      result.stderr,
      /^wallet-snapshot: s3:\/\/snapshots\/faults-\d+: reading faults-\d+\/live.json failed after 2 attempts: the answer's body failed after its headers: the connection closed before the whole answer arrived \(aborted\); the live version was left as it was/,
    );
    assert.equal(proxy.requests.filter(isPointerRead).length - pointerReads, 2, 'the read is made twice, each as a whole');
  } finally {
    await proxy.close();
  }
});

test("each kind of fault, on every request, exits 5 with the store's own words", async () => {
  const expected: [FaultKind, RegExp][] = [
    ['500', /failed after 2 attempts: InternalError: We encountered an internal error\. Please try again\. \(HTTP 500\)/],
    ['slow-down', /failed after 2 attempts: SlowDown: Please reduce your request rate\. \(HTTP 503\)/],
    ['reset', /failed after 2 attempts: .*(socket hang up|ECONNRESET)/],
    ['stall', /failed after 2 attempts: TimeoutError: .*timed out after 300 ms of inactivity/],
  ];
  for (const [kind, words] of expected) {
    const { result } = await failingCli(kind, undefined, ['--dir', nights[0]!]);
    assert.equal(result.code, EXIT_STORAGE, `${kind}: ${result.stderr}`);
    assert.match(result.stderr, words, kind);
  }
});

test.run();
