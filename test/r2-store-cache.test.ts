/**
 * The Worker's store with the colo's cache: a file read once per version is answered from the
 * cache afterwards (an assembled daily document and an address without a file alike), and a new
 * version is never answered from an entry of the old one. The cache here is a Map behind the
 * Cache API's two methods; the Worker in workerd runs with the real one in the http suite.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import zlib from 'node:zlib';
import { R2TreeStore, type CacheLike, type R2BucketLike, type R2ObjectLike } from '../server/r2-store.ts';

function bucketOf(objects: Record<string, { body: string; gzip?: boolean; metadata?: Record<string, string> }>) {
  const reads: string[] = [];
  const bucket: R2BucketLike = {
    async get(key) {
      reads.push(key);
      const object = objects[key];
      if (!object) return null;
      const bytes = object.gzip ? zlib.gzipSync(object.body) : Buffer.from(object.body);
      return {
        key,
        uploaded: new Date(0),
        httpEtag: '"etag"',
        httpMetadata: object.gzip ? { contentEncoding: 'gzip' } : {},
        customMetadata: object.metadata ?? {},
        arrayBuffer: async () => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length),
      } satisfies R2ObjectLike;
    },
  };
  return { bucket, reads, objects };
}

function mapCache(): CacheLike & { entries: Map<string, Response> } {
  const entries = new Map<string, Response>();
  return {
    entries,
    async match(request) {
      return entries.get(request.url)?.clone();
    },
    async put(request, response) {
      entries.set(request.url, response);
    },
  };
}

const pointer = (version: string) => ({ body: JSON.stringify({ version, previous: [], publishedAt: '2025-11-21T00:00:00Z' }) });
const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');

test('a file is read from R2 once per version, then from the cache, with its digest and encoding', async () => {
  const { bucket, reads } = bucketOf({
    'live.json': pointer('v1'),
    'versions/v1/v1/seasons.json': { body: '{"seasons":[]}', gzip: true, metadata: { sha256: 'abc', mtime: '1000' } },
  });
  const store = new R2TreeStore(bucket, '', mapCache());
  const first = await (await store.open()).read('v1/seasons.json');
  const second = await (await store.open()).read('v1/seasons.json');
  assert.equal(reads, ['live.json', 'versions/v1/v1/seasons.json'], 'the second read costs R2 nothing');
  for (const file of [first!, second!]) {
    assert.is(file.encoding, 'gzip');
    assert.is(file.digest, 'abc');
    assert.is(file.modified, 1000);
    assert.is(zlib.gunzipSync(file.bytes).toString(), '{"seasons":[]}');
  }
});

test('an address without a file is cached as missing; a document in two parts is cached whole', async () => {
  const whole = '{"asOf":"2025-11-20","days":[{"date":"2025-10-31"},{"date":"2025-11-01"}]}';
  const at = whole.indexOf('{"date"');
  const blob = '{"date":"2025-10-31"},';
  const { bucket, reads } = bucketOf({
    'live.json': pointer('v1'),
    'versions/v1/daily.json': { body: whole.slice(0, at) + whole.slice(at + blob.length), gzip: true, metadata: { sha256: 'd', mtime: '1', blob: 'b1', 'blob-at': String(at), size: String(whole.length) } },
    'blobs/b1': { body: blob, gzip: true },
  });
  const store = new R2TreeStore(bucket, '', mapCache());
  for (let i = 0; i < 3; i++) {
    const version = await store.open();
    assert.is(await version.read('none.json'), null);
    assert.is(text((await version.read('daily.json'))!.bytes), whole);
  }
  assert.equal(reads, ['live.json', 'versions/v1/none.json', 'versions/v1/daily.json', 'blobs/b1']);
});

test('a new version is never answered from the old version\'s entry', async () => {
  const { bucket, reads, objects } = bucketOf({
    'live.json': pointer('v1'),
    'versions/v1/v1/seasons.json': { body: 'old', metadata: { sha256: 'o', mtime: '1' } },
    'versions/v2/v1/seasons.json': { body: 'new', metadata: { sha256: 'n', mtime: '2' } },
  });
  const cache = mapCache();
  assert.is(text((await (await new R2TreeStore(bucket, '', cache).open()).read('v1/seasons.json'))!.bytes), 'old');
  objects['live.json'] = pointer('v2');
  // A fresh store reads the pointer now (an isolate keeps it a few seconds).
  assert.is(text((await (await new R2TreeStore(bucket, '', cache).open()).read('v1/seasons.json'))!.bytes), 'new');
  assert.ok(reads.includes('versions/v2/v1/seasons.json'));
});

test('without a cache every read goes to R2', async () => {
  const { bucket, reads } = bucketOf({ 'live.json': pointer('v1'), 'versions/v1/a.json': { body: '{}' } });
  const store = new R2TreeStore(bucket, '');
  for (let i = 0; i < 2; i++) await (await store.open()).read('a.json');
  assert.equal(reads, ['live.json', 'versions/v1/a.json', 'versions/v1/a.json']);
});

test.run();
