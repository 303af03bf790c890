/**
 * The stored bytes of a document are gzip level 6 of its bytes, byte for byte, small or large: a
 * version's objects (and so what a second night copies instead of uploading) never depend on how
 * publish ran. publish's tree-file threads describe files exactly and refuse a file whose bytes
 * changed after they were described.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { GZIP_LEVEL } from '../publish/compress.ts';
import { fileObject } from '../publish/stored-object.ts';
import type { TreeFile } from '../publish/read-tree.ts';
import { describeFiles, storedParts } from '../publish/tree-file-pool.ts';
import { tempDir } from './helpers/fixtures.ts';

/** A JSON document of exactly `size` bytes, compressible like the tree's. */
function documentOf(size: number): Buffer {
  const text = `{"rows":[${Array.from({ length: size }, (_, i) => i % 97).join(',')}]}`.slice(0, size - 1);
  return Buffer.from(`${text}}`);
}

for (const size of [1, 4096, 200_000]) {
  test(`a ${size}-byte document is stored as gzip level ${GZIP_LEVEL} of its bytes`, async () => {
    const bytes = documentOf(size);
    assert.is(bytes.length, size);
    const file: TreeFile = { path: 'v1/address/0xab/points.json', size, mtimeMs: 0, sha256: crypto.createHash('sha256').update(bytes).digest('hex') };
    const object = await fileObject('2025-11-20-0123456789abcdef', file, bytes);
    assert.equal(Buffer.from(object.body), zlib.gzipSync(bytes, { level: GZIP_LEVEL }));
    assert.equal(zlib.gunzipSync(object.body), bytes);
    assert.is(object.httpMetadata.contentEncoding, 'gzip');
    assert.is(object.key, 'versions/2025-11-20-0123456789abcdef/v1/address/0xab/points.json');
  });
}

test('the tree-file threads describe each file exactly, and give no object for one whose bytes changed since', async () => {
  const dir = tempDir();
  const documents = { 'v1/address/0xab/points.json': documentOf(300), 'v1/address/0xcd/points.json': documentOf(9_000) };
  for (const [treePath, bytes] of Object.entries(documents)) {
    fs.mkdirSync(path.dirname(path.join(dir, treePath)), { recursive: true });
    fs.writeFileSync(path.join(dir, treePath), bytes);
  }
  const files = await describeFiles(dir, Object.keys(documents), '2025-11-20');
  assert.equal(files.map(({ path: treePath, size, sha256 }) => ({ treePath, size, sha256 })), Object.entries(documents).map(([treePath, bytes]) => ({
    treePath, size: bytes.length, sha256: crypto.createHash('sha256').update(bytes).digest('hex'),
  })));
  const stored = (await storedParts(dir, '2025-11-20-0123456789abcdef', files[1]!, { object: true, blob: false }))?.object;
  assert.equal(zlib.gunzipSync(stored!.body), documents['v1/address/0xcd/points.json']);
  // Only the bytes of the object cross threads, not the buffer zlib wrote them into.
  assert.is(stored!.body.byteLength, stored!.body.buffer.byteLength);

  fs.writeFileSync(path.join(dir, 'v1/address/0xcd/points.json'), documentOf(9_001));
  assert.is(await storedParts(dir, '2025-11-20-0123456789abcdef', files[1]!, { object: true, blob: false }), null);
});

test('one read of a daily document in two parts makes both its object and its closed months\' blob', async () => {
  const dir = tempDir();
  const treePath = `v1/address/0x${'ab'.repeat(20)}/portfolio/daily.json`;
  const row = (date: string) => `{"date":"${date}","positions":[],"totalValueUsd":0}`;
  const text = `{"asOf":"2025-11-20","days":[${['2025-09-30', '2025-10-31', '2025-11-01', '2025-11-20'].map(row).join(',')}]}`;
  fs.mkdirSync(path.dirname(path.join(dir, treePath)), { recursive: true });
  fs.writeFileSync(path.join(dir, treePath), text);
  const [file] = await describeFiles(dir, [treePath], '2025-11-20');
  assert.ok(file!.blob, 'the closed months are a blob');
  const parts = await storedParts(dir, '2025-11-20-0123456789abcdef', file!, { object: true, blob: true });
  const closed = Buffer.from(text).subarray(file!.blob!.at, file!.blob!.at + file!.blob!.length);
  assert.equal(zlib.gunzipSync(parts!.blob!.body), closed);
  assert.is(parts!.blob!.key, `blobs/${file!.blob!.sha256}`);
  assert.equal(zlib.gunzipSync(parts!.object!.body).toString(), text.replace(closed.toString(), ''));
});

test.run();
