/**
 * A packed shard (tree/bucket.ts): its archives are plain tar files that `tar` lists and unpacks,
 * cut at 64 MiB; its index finds every file; a second run sends only the archives not stored
 * whole; and the Worker's store answers each file, as stored, with at most two reads of R2 (one
 * when the index is held, none from the colo's cache, keyed by version).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { Progress } from '../core/progress.ts';
import { packShard, type PackTarget } from '../publish/pack-shard.ts';
import { describeFile } from '../publish/tree-file.ts';
import { archiveName, INDEX_NAME, packFolder, versionPrefix } from '../tree/bucket.ts';
import { pointerText, type PackedShard } from '../tree/live-pointer.ts';
import {
  buildIndex,
  countEntries,
  ENTRY_BYTES,
  findEntry,
  pathHashFromDigest,
  pathHashOf,
  readEntries,
  windowOf,
} from '../tree/pack-index.ts';
import { archiveLength, memberHeader, readMemberHeader } from '../tree/pack-archive.ts';
import { draw } from '../publish/scrub.ts';
import { R2TreeStore, type CacheLike, type R2BucketLike } from '../server/r2-store.ts';
import { tempDir } from './helpers/fixtures.ts';
import tar from 'tar-stream';
import fc from 'fast-check';
import { gunzip, gunzipChunkSize, gzip } from '../tree/pack-compress.ts';

const MIB = 1024 * 1024;
/** sha256 of two members' headers as publish writes them: a change of the archives' bytes fails here. */
const PINNED_HEADER = '40abf88ba19af6e8f06c912897d0e51bcf066cdfb7098c6fa49f00047052718a';
const PINNED_LONG_HEADER = '75476d88f286e3dc2ea977f518d9680124cb968ac7a4a9798650bfe3226ddd2b';
const WALLET = `0x${'ab'.repeat(20)}`;
const LONG = `v1/address/${WALLET}/${'deep/'.repeat(14)}points/history.json`;

/** A small tree: two incompressible 40 MiB files (an archive each), documents, and a path too long for ustar's name field alone. */
function makeTree(): { dir: string; files: Record<string, Buffer> } {
  const dir = tempDir('ws-pack-');
  const random = (bytes: number) => crypto.randomBytes(bytes);
  const files: Record<string, Buffer> = {
    'explorer/a.png': random(40 * MIB),
    'explorer/b.png': random(40 * MIB),
    'v1/seasons.json': Buffer.from('{"seasons":[]}'),
    [`v1/address/${WALLET}/portfolio.json`]: Buffer.from('{"1":{}}'),
    [LONG]: Buffer.from('{"seasons":[]}'),
  };
  for (const [file, bytes] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), bytes);
    fs.utimesSync(path.join(dir, file), new Date(1_700_000_000_250), new Date(1_700_000_000_250));
  }
  return { dir, files };
}

function memoryTarget(stored: PackTarget['stored'] = new Map()): PackTarget & { objects: Map<string, Uint8Array> } {
  const objects = new Map<string, Uint8Array>();
  return { stored, objects, put: async (name, bytes) => void objects.set(name, bytes.slice()) };
}

const options = (dir: string) => ({
  dir,
  progress: new Progress('quiet'),
  checkInterrupted: () => {},
  edited: (file: string, sentBefore: number) => new Error(`${file} edited, ${sentBefore} sent before`),
});
/** The files as a build records them: each with the sha256 of its bytes. */
const recorded = (dir: string, paths: string[]) => paths.map((treePath) => describeFile(dir, treePath));
const md5 = (bytes: Uint8Array) => crypto.createHash('md5').update(bytes).digest('hex');

let tree: ReturnType<typeof makeTree>;
let packed: { shape: PackedShard; objects: Map<string, Uint8Array> };

test.before(async () => {
  tree = makeTree();
  const files = recorded(tree.dir, Object.keys(tree.files).sort());
  const target = memoryTarget();
  const summary = await packShard(options(tree.dir), files, target);
  packed = { shape: summary.shape, objects: target.objects };
});

test('archives of at most 64 MiB that tar lists and unpacks, each text file gzip on its own', () => {
  assert.is(packed.shape.archives, 2);
  assert.equal([...packed.objects.keys()].sort(), ['00001.tar', '00002.tar', 'index']);
  for (const name of ['00001.tar', '00002.tar']) assert.ok(packed.objects.get(name)!.length <= 64 * MIB, `${name} is at most 64 MiB`);
  const folder = tempDir('ws-pack-tar-');
  for (const name of ['00001.tar', '00002.tar']) fs.writeFileSync(path.join(folder, name), packed.objects.get(name)!);
  const list = (name: string) =>
    execFileSync('tar', ['-tf', path.join(folder, name)], { encoding: 'utf8' })
      .trim()
      .split('\n');
  assert.equal(list('00001.tar'), ['explorer/a.png']);
  assert.equal(list('00002.tar'), ['explorer/b.png', `${LONG}.gz`, `v1/address/${WALLET}/portfolio.json.gz`, 'v1/seasons.json.gz']);
  const member = execFileSync('tar', ['-xOf', path.join(folder, '00002.tar'), `${LONG}.gz`]);
  assert.is(zlib.gunzipSync(member).toString(), '{"seasons":[]}');
  assert.ok(
    execFileSync('tar', ['-xOf', path.join(folder, '00001.tar'), 'explorer/a.png'], { maxBuffer: 64 * MIB }).equals(
      tree.files['explorer/a.png']!,
    ),
  );
});

test("tar-stream, a second reader, reads every member as written: name, size, mode, mtime, bytes; the header's bytes are pinned", async () => {
  const members: { name: string; size: number; mode: number; mtime: number; type: string; bytes: Buffer }[] = [];
  const extract = tar.extract();
  extract.on('entry', (header, stream, next) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk) => void chunks.push(chunk as Buffer));
    stream.on('end', () => {
      members.push({
        name: header.name,
        size: header.size ?? -1,
        mode: header.mode ?? -1,
        mtime: header.mtime!.getTime(),
        type: header.type!,
        bytes: Buffer.concat(chunks),
      });
      next();
    });
  });
  const finished = new Promise<void>((resolve, reject) => extract.on('finish', () => resolve()).on('error', reject));
  extract.end(Buffer.from(packed.objects.get('00002.tar')!));
  await finished;
  assert.equal(
    members.map(({ bytes: _, ...member }) => member),
    ['explorer/b.png', `${LONG}.gz`, `v1/address/${WALLET}/portfolio.json.gz`, 'v1/seasons.json.gz'].map((name, i) => ({
      name,
      size: members[i]!.bytes.length,
      mode: 0o644,
      mtime: 1_700_000_000_000,
      type: 'file',
    })),
  );
  assert.ok(members[0]!.bytes.equals(tree.files['explorer/b.png']!));
  assert.is(zlib.gunzipSync(members[3]!.bytes).toString(), '{"seasons":[]}');
  // The published archives' bytes, pinned: tar-stream's own headers would differ (docs/decisions.md, "The night's guard, as one value").
  const digest = (bytes: Uint8Array) => crypto.createHash('sha256').update(bytes).digest('hex');
  assert.is(digest(memberHeader('v1/seasons.json.gz', 700, 1_700_000_000_250)), PINNED_HEADER);
  assert.is(digest(memberHeader(`${LONG}.gz`, 34, 1_700_000_000_250)), PINNED_LONG_HEADER);
});

test('the index finds every file, in one window of slots from its home slot', async () => {
  const index = packed.objects.get(INDEX_NAME)!;
  assert.is(index.length, packed.shape.length * ENTRY_BYTES);
  for (const [file, bytes] of Object.entries(tree.files)) {
    const hash = await pathHashOf(file);
    const window = windowOf(hash, packed.shape);
    const entry = findEntry(index.subarray(window.offset, window.offset + window.length), window.first, hash, packed.shape)!;
    assert.is(entry.sha256, crypto.createHash('sha256').update(bytes).digest('hex'));
    assert.is(entry.mtimeMs, 1_700_000_000_250);
    const stored = packed.objects.get(archiveName(entry.archive))!.subarray(entry.offset, entry.offset + entry.length);
    assert.ok((entry.gzip ? zlib.gunzipSync(stored) : Buffer.from(stored)).equals(bytes), file);
  }
  const absent = await pathHashOf('v1/leaderboard/s9.json');
  const window = windowOf(absent, packed.shape);
  assert.is(findEntry(index.subarray(window.offset, window.offset + window.length), window.first, absent, packed.shape), null);
});

test('an index of 100,000 entries: 85 bytes an entry, every entry within a window of at most a few kilobytes', async () => {
  // Hashed with node:crypto, as publish's threads hash (100,000 awaits of WebCrypto took 3.4 s).
  const hashOf = (file: string) => pathHashFromDigest(crypto.createHash('sha256').update(file).digest());
  const entries = Array.from({ length: 100_000 }, (_, i) => ({
    pathHash: hashOf(`v1/address/${i}`),
    archive: 1,
    offset: i,
    length: 1,
    gzip: true,
    mtimeMs: 0,
    sha256: '0'.repeat(64),
  }));
  const { bytes, shape } = buildIndex(entries);
  assert.is(shape.slots, 133_334);
  assert.ok(bytes.length / entries.length < 86, `${bytes.length / entries.length} bytes an entry`);
  assert.ok(shape.window * ENTRY_BYTES <= 8192, `a window of ${shape.window} slots`);
  for (const [i, entry] of entries.slice(0, 1000).entries()) {
    assert.is(entry.pathHash, await pathHashOf(`v1/address/${i}`));
    const window = windowOf(entry.pathHash, shape);
    assert.is(
      findEntry(bytes.subarray(window.offset, window.offset + window.length), window.first, entry.pathHash, shape)?.offset,
      entry.offset,
    );
  }
});

test('a second run sends only what is not stored whole: a stored archive of other bytes is sent again', async () => {
  const files = recorded(tree.dir, Object.keys(tree.files).sort());
  const first = packed.objects.get('00001.tar')!;
  const second = packed.objects.get('00002.tar')!;
  const target = memoryTarget(
    new Map([
      ['00001.tar', { size: first.length, md5: md5(first) }],
      ['00002.tar', { size: second.length, md5: '0'.repeat(32) }],
    ]),
  );
  const summary = await packShard(options(tree.dir), files, target);
  assert.equal([...target.objects.keys()].sort(), ['00002.tar', 'index']);
  assert.equal(summary.skipped, { objects: 1, bytes: first.length });
  assert.ok(
    target.objects.get('00002.tar')!.every((byte, i) => byte === second[i]),
    'the same bytes as the first run',
  );
});

test('many runs through the reused run buffers: every member intact, every padding byte zero', async () => {
  const dir = tempDir('ws-pack-many-');
  // Documents of many sizes, so that a buffer reused by a later run held longer members there before.
  const paths = Array.from({ length: 1500 }, (_, i) => `v1/address/${String(i).padStart(4, '0')}.json`);
  const contents = paths.map((_, i) =>
    Buffer.from(
      JSON.stringify({
        i,
        noise: crypto
          .createHash('sha256')
          .update(String(i))
          .digest('hex')
          .repeat(1 + ((i * 7919) % 40)),
      }),
    ),
  );
  for (const [i, file] of paths.entries()) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), contents[i]!);
  }
  const target = memoryTarget();
  const summary = await packShard(options(dir), recorded(dir, paths), target);
  assert.is(summary.shape.archives, 1);
  const archive = target.objects.get('00001.tar')!;
  const index = target.objects.get(INDEX_NAME)!;
  for (const [i, file] of paths.entries()) {
    const hash = await pathHashOf(file);
    const window = windowOf(hash, summary.shape);
    const entry = findEntry(index.subarray(window.offset, window.offset + window.length), window.first, hash, summary.shape)!;
    assert.ok(zlib.gunzipSync(archive.subarray(entry.offset, entry.offset + entry.length)).equals(contents[i]!), file);
    const paddingEnd = Math.ceil((entry.offset + entry.length) / 512) * 512;
    assert.ok(
      archive.subarray(entry.offset + entry.length, paddingEnd).every((byte) => byte === 0),
      `${file}: its padding is zeros`,
    );
  }
  const folder = tempDir('ws-pack-many-tar-');
  fs.writeFileSync(path.join(folder, '00001.tar'), archive);
  assert.is(
    execFileSync('tar', ['-tf', path.join(folder, '00001.tar')], { encoding: 'utf8' })
      .trim()
      .split('\n').length,
    paths.length,
  );
});

test("a file whose bytes are not the recorded ones stops the packing before its archive is sent, in the caller's words", async () => {
  const files = recorded(tree.dir, ['v1/seasons.json']);
  const dir = tempDir('ws-pack-changed-');
  fs.mkdirSync(path.join(dir, 'v1'));
  fs.writeFileSync(path.join(dir, 'v1/seasons.json'), '{"seasons":[1]}');
  const target = memoryTarget();
  try {
    await packShard(options(dir), files, target);
    assert.unreachable();
  } catch (error) {
    assert.is((error as Error).message, 'v1/seasons.json edited, 0 sent before');
  }
  assert.is(target.objects.size, 0);
});

test('a file edited in a later batch: the archives sent before it hold only checked files, and are counted', async () => {
  const dir = tempDir('ws-pack-edited-late-');
  const write = (file: string, bytes: Buffer) => {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), bytes);
  };
  write('explorer/a.png', tree.files['explorer/a.png']!);
  write('explorer/b.png', tree.files['explorer/b.png']!);
  // More files than one task packs (64), so that the edited one is read after the first archive is sent.
  const small = Array.from({ length: 70 }, (_, i) => `v1/address/${String(i).padStart(2, '0')}.json`);
  for (const file of small) write(file, Buffer.from('{}'));
  const files = recorded(dir, ['explorer/a.png', 'explorer/b.png', ...small]);
  write(small.at(-1)!, Buffer.from('{"edited":true}'));
  const target = memoryTarget();
  try {
    await packShard(options(dir), files, target);
    assert.unreachable();
  } catch (error) {
    assert.is((error as Error).message, `${small.at(-1)} edited, 1 sent before`);
  }
  assert.equal([...target.objects.keys()], ['00001.tar']);
  const folder = tempDir('ws-pack-edited-tar-');
  fs.writeFileSync(path.join(folder, '00001.tar'), target.objects.get('00001.tar')!);
  assert.equal(
    execFileSync('tar', ['-tf', path.join(folder, '00001.tar')], { encoding: 'utf8' })
      .trim()
      .split('\n'),
    ['explorer/a.png'],
  );
});

/** An R2 bucket over the packed objects of version `v` (one shard), counting reads. */
function bucketOf(versions: Record<string, { shape: PackedShard; objects: Map<string, Uint8Array> }>, live: string) {
  const reads: string[] = [];
  const objects = new Map<string, Uint8Array>();
  for (const [version, pack] of Object.entries(versions)) {
    for (const [name, bytes] of pack.objects) objects.set(`${versionPrefix(version)}${packFolder({ index: 1, count: 1 })}${name}`, bytes);
  }
  const setLive = (version: string) => {
    objects.set(
      'live.json',
      new TextEncoder().encode(
        pointerText({ version, previous: [], publishedAt: '2025-11-21T00:00:00.000Z', shards: [versions[version]!.shape] }),
      ),
    );
  };
  setLive(live);
  const bucket: R2BucketLike = {
    async get(key, options) {
      reads.push(options?.range ? `${key} ${options.range.offset}+${options.range.length}` : key);
      const bytes = objects.get(key);
      if (!bytes) return null;
      const part = options?.range ? bytes.subarray(options.range.offset, options.range.offset + options.range.length) : bytes;
      return { arrayBuffer: async () => new Uint8Array(part).buffer };
    },
  };
  return { bucket, reads, setLive };
}

function mapCache(): CacheLike {
  const entries = new Map<string, Response>();
  return {
    async match(request) {
      return entries.get(request.url)?.clone();
    },
    async put(request, response) {
      entries.set(request.url, response);
    },
  };
}

const V1 = '2025-11-20-0000000000000001';
const V2 = '2025-11-21-0000000000000002';

test("the Worker's store: two reads a file (index window, member), the digest and mtime from the index", async () => {
  const { bucket, reads } = bucketOf({ [V1]: packed }, V1);
  const store = new R2TreeStore(bucket, '', null, 0);
  const version = await store.open();
  const file = (await version.read('v1/seasons.json'))!;
  assert.is(file.encoding, 'gzip');
  assert.is(zlib.gunzipSync(file.bytes).toString(), '{"seasons":[]}');
  assert.is(file.digest, crypto.createHash('sha256').update('{"seasons":[]}').digest('hex'));
  assert.is(file.modified, 1_700_000_000_250);
  const png = (await version.read('explorer/a.png'))!;
  assert.is(png.encoding, null);
  assert.ok(Buffer.from(png.bytes).equals(tree.files['explorer/a.png']!));
  assert.is(await version.read(`v1/address/${'0x'.padEnd(42, '1')}/portfolio.json`), null);
  assert.is(reads.length, 1 + 2 + 2 + 1, reads.join('\n'));
  assert.ok(
    reads.every((read, i) => i === 0 || read.includes('+')),
    'every read after the pointer is a range',
  );
});

test("an index held in the isolate: one read a file; the colo's cache: none; a new version never from the old entries", async () => {
  const other = { shape: packed.shape, objects: new Map(packed.objects) };
  const { bucket, reads, setLive } = bucketOf({ [V1]: packed, [V2]: other }, V1);
  const cache = mapCache();
  const store = new R2TreeStore(bucket, '', cache);
  await (await store.open()).read('v1/seasons.json');
  assert.equal(
    reads.map((read) => read.split(' ')[0]),
    ['live.json', `versions/${V1}/pack/1-of-1/index`, `versions/${V1}/pack/1-of-1/00002.tar`],
  );
  reads.length = 0;
  await (await store.open()).read(`v1/address/${WALLET}/portfolio.json`);
  assert.equal(
    reads.map((read) => read.split(' ')[0]),
    [`versions/${V1}/pack/1-of-1/00002.tar`],
    'the index is held',
  );
  reads.length = 0;
  for (let i = 0; i < 3; i++) {
    const version = await store.open();
    await version.read('v1/seasons.json');
    assert.is(await version.read('v1/none.json'), null);
  }
  assert.equal(reads, [], "the second time, the colo's cache answers both (the missing file too)");
  setLive(V2);
  // A fresh store reads the pointer now (an isolate keeps it a few seconds).
  await (await new R2TreeStore(bucket, '', cache).open()).read('v1/seasons.json');
  assert.equal(
    reads.map((read) => read.split(' ')[0]),
    ['live.json', `versions/${V2}/pack/1-of-1/index`, `versions/${V2}/pack/1-of-1/00002.tar`],
  );
});

test("a pointer of another release is refused as the store's error, not served", async () => {
  const bucket: R2BucketLike = {
    get: async () => ({
      arrayBuffer: async () =>
        new TextEncoder().encode('{"version":"2025-11-20-0000000000000001","previous":[],"publishedAt":"2025-11-21T00:00:00Z"}').buffer,
    }),
  };
  try {
    await new R2TreeStore(bucket).open();
    assert.unreachable();
  } catch (error) {
    assert.is((error as Error).name, 'StoreUnavailableError');
    assert.match((error as Error).message, 'live.json is not a pointer this release of wallet-snapshot reads');
  }
});

test("the scrub reads the format back: a member header as written, an index's every entry, an archive's length, a reproducible draw", () => {
  const long = `${'deep/'.repeat(30)}history.json.gz`;
  assert.equal(readMemberHeader(memberHeader(long, 1234, 1_700_000_000_250)), { name: long, size: 1234 });
  const header = memberHeader('v1/seasons.json.gz', 10, 0);
  header[0] = header[0]! ^ 1;
  assert.equal(readMemberHeader(header), null, 'a header whose checksum does not add up');
  assert.equal(readMemberHeader(new Uint8Array(512)), null, 'a zero block');
  assert.equal([archiveLength(512 + 10), archiveLength(1024)], [1024 + 1024, 1024 + 1024]);
  const entries = [1n, 2n, 3n].map((pathHash, i) => ({
    pathHash: pathHash << 60n,
    archive: 1,
    offset: 512 * (i + 1),
    length: 10,
    gzip: true,
    mtimeMs: 0,
    sha256: 'ab'.repeat(32),
  }));
  assert.equal(
    readEntries(buildIndex(entries).bytes).sort((a, b) => a.offset - b.offset),
    entries,
  );
  // verify counts an index's entries without reading them: the same number, empty slots left out.
  assert.is(countEntries(buildIndex(entries).bytes), entries.length);
  assert.equal(draw(1000, 10, 42), draw(1000, 10, 42));
  assert.not.equal(draw(1000, 10, 42), draw(1000, 10, 43));
  assert.equal(draw(5, 5, 1).sort(), [0, 1, 2, 3, 4], 'every member at most once');
});

test('a member is gunzipped to its bytes whatever its size, and a trailer that lies about the size is refused, its buffer at most 16 MiB', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 70_000 }), fc.nat({ max: 5 }), (bytes, repeat) => {
      // Repeated, the bytes compress well: outputs from a few bytes to many zlib pieces.
      const document = Buffer.concat(Array.from({ length: repeat + 1 }, () => bytes));
      assert.ok(gunzip(gzip(document)).equals(document));
    }),
    { seed: 56, numRuns: 200 },
  );
  const member = gzip(Buffer.alloc(100_000, '{"days":[]}'));
  for (const size of [0, 99_999, 100_001, 0xffff_ffff]) {
    const lying = Buffer.from(member);
    lying.writeUInt32LE(size, lying.length - 4);
    assert.throws(() => gunzip(lying), /incorrect length check/, `a trailer of ${size} bytes`);
    assert.ok(gunzipChunkSize(lying) <= 16 * MIB, `a trailer of ${size} bytes asks for ${gunzipChunkSize(lying)}`);
  }
  assert.is(gunzipChunkSize(member), 100_001);
  assert.throws(() => gunzip(member.subarray(0, 3)), /unexpected end of file/);
});

test.run();
