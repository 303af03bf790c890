/**
 * The stored bytes of a document are gzip level 6 of its bytes, byte for byte, small or large: a
 * version's objects (and so what a second night copies instead of uploading) never depend on how
 * publish ran.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import { GZIP_LEVEL } from '../publish/compress.ts';
import { fileObject } from '../publish/stored-object.ts';
import type { TreeFile } from '../publish/read-tree.ts';

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

test.run();
