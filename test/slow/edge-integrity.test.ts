/**
 * Integrity at the edge: the Worker in workerd never answers a member whose bytes do not match the
 * sha256 its index records, nor a read the store failed (a member replaced by another valid gzip
 * document, flipped bytes, a truncated archive, a deleted index): 503 with Retry-After, the JSON
 * error and the interface's headers, logged with the object's key, never cached; and the right
 * document again once the store is repaired. The same through `serve --runtime workerd --from`
 * over a bucket whose objects were altered in S3.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { A, B, C, balance, build, unix, type Built } from '../helpers/fixtures.ts';
import { request, type Answer } from '../helpers/http.ts';
import { startWorkerd, startWorkerdFromBucket, type LocalBucket } from '../../preview/workerd.ts';
import { runPublish } from '../../publish/index.ts';
import { archiveName, INDEX_NAME, packFolder, POINTER_KEY, versionPrefix } from '../../tree/bucket.ts';
import { parsePointer, type LivePointer } from '../../tree/live-pointer.ts';
import { findEntry, pathHashOf, type IndexEntry } from '../../tree/pack-index.ts';
import { BUCKET, S3_CREDENTIALS, startS3Server } from '../helpers/s3-server.ts';

let built: Built;
async function tree(): Promise<Built> {
  built ??= await build({
    balances: [A, B, C].map((address, i) =>
      balance({ address, block_number: i, timestamp: unix('2025-11-01T10:00:00Z'), balance: `${i + 1}000000000000000000` }),
    ),
    seasons: [{ season: 1, as_of: null }],
    points: [{ season: 1, date: '2025-11-03', address: A, points: 5 }],
  });
  return built;
}

const portfolio = (address: string) => `/v1/address/${address}/portfolio`;
const treeFile = (address: string) => `v1/address/${address}/portfolio.json`;

/** Where a tree file's member is: its archive's key and its index entry. */
async function memberOf(
  objects: Map<string, Uint8Array>,
  live: LivePointer,
  treePath: string,
  prefix = '',
): Promise<{ key: string; entry: IndexEntry }> {
  const folder = `${prefix}${versionPrefix(live.version)}${packFolder({ index: 1, count: 1 })}`;
  const entry = findEntry(objects.get(`${folder}${INDEX_NAME}`)!, 0, await pathHashOf(treePath), live.shards[0]!)!;
  return { key: `${folder}${archiveName(entry.archive)}`, entry };
}

/** `bytes` with the member's range replaced. */
function replaced(bytes: Uint8Array, entry: IndexEntry, member: Uint8Array): Uint8Array {
  assert.is(member.length, entry.length);
  const copy = new Uint8Array(bytes);
  copy.set(member, entry.offset);
  return copy;
}

/** Another valid gzip document of exactly `length` bytes (stored, not deflated: 23 bytes of framing). */
function otherDocument(length: number): Uint8Array {
  const text = '{"0x0000000000000000000000000000000000000000":{}}';
  const document = zlib.gzipSync(text.padEnd(length - 23, ' '), { level: 0 });
  assert.is(document.length, length);
  assert.is(zlib.gunzipSync(document).toString().trim(), text);
  return document;
}

function flipped(member: Uint8Array): Uint8Array {
  const copy = new Uint8Array(member);
  for (let i = 12; i < copy.length - 8; i += 7) copy[i] = copy[i]! ^ 0x5a;
  return copy;
}

/** console.error of the Worker reaches this process's stderr through Miniflare: what it wrote meanwhile. */
async function stderrOf<T>(action: () => Promise<T>): Promise<{ result: T; text: string }> {
  let text = '';
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
    return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stderr.write;
  try {
    const result = await action();
    // workerd's output arrives through a pipe: a moment for the last lines.
    await new Promise((resolve) => setTimeout(resolve, 300));
    return { result, text };
  } finally {
    process.stderr.write = write;
  }
}

function assertRefused(answer: Answer, what: string): void {
  assert.is(answer.status, 503, what);
  assert.is(answer.headers['retry-after'], '1', what);
  assert.is(answer.headers['content-type'], 'application/json; charset=utf-8', what);
  assert.is(answer.headers['access-control-allow-origin'], '*', what);
  assert.is(answer.headers['cache-control'], 'no-cache', what);
  assert.match(answer.headers.etag ?? '', /^W\/"[^"]+"$/, what);
  if (answer.text === '') return assert.is(answer.headers['content-length'] !== '0', true, `${what}: a HEAD's length`);
  assert.equal(Object.keys(answer.json), ['error'], what);
  assert.match(answer.json.error, /^The server cannot read the snapshot right now \(.+\); retry shortly\.$/, what);
}

async function objectsOf(bucket: LocalBucket, keys: string[]): Promise<Map<string, Uint8Array>> {
  const objects = new Map<string, Uint8Array>();
  for (const key of keys) objects.set(key, new Uint8Array(await (await bucket.get(key))!.arrayBuffer()));
  return objects;
}

test('the Worker answers 503 for altered, truncated and missing objects, caches none of it, and answers right once repaired', async () => {
  const { out } = await tree();
  const worker = await startWorkerd({ dir: out, port: 0, host: '127.0.0.1' });
  try {
    const { bucket } = worker;
    const live = parsePointer(new TextDecoder().decode(await (await bucket.get(POINTER_KEY))!.arrayBuffer()))!;
    const folder = `${versionPrefix(live.version)}${packFolder({ index: 1, count: 1 })}`;
    const indexKey = `${folder}${INDEX_NAME}`;
    const archiveKey = `${folder}${archiveName(1)}`;
    const original = await objectsOf(bucket, [indexKey, archiveKey]);
    const put = (key: string, bytes: Uint8Array | string) =>
      bucket.put(key, typeof bytes === 'string' ? bytes : new Uint8Array(bytes), { httpMetadata: {} });
    const restore = async () => {
      for (const [key, bytes] of original) await put(key, bytes);
    };
    const expected = (address: string) => fs.readFileSync(path.join(out, treeFile(address)), 'utf8');

    // A member replaced by another valid gzip document, and one with flipped bytes.
    const a = await memberOf(original, live, treeFile(A));
    const b = await memberOf(original, live, treeFile(B));
    assert.ok(a.entry.gzip && b.entry.gzip);
    let archive = original.get(archiveKey)!;
    archive = replaced(archive, a.entry, otherDocument(a.entry.length));
    archive = replaced(archive, b.entry, flipped(archive.subarray(b.entry.offset, b.entry.offset + b.entry.length)));
    await put(archiveKey, archive);
    const { result: refused, text: logged } = await stderrOf(async () => [
      await request(worker.url, portfolio(A)),
      await request(worker.url, portfolio(A), { headers: { 'Accept-Encoding': 'gzip' } }),
      await request(worker.url, portfolio(B), { headers: { 'Accept-Encoding': 'gzip' } }),
      await request(worker.url, portfolio(B), { method: 'HEAD' }),
    ]);
    refused.forEach((answer, i) => assertRefused(answer, `altered member, request ${i + 1}`));
    assert.match(refused[0]!.json.error, 'a stored document does not match the checksum its index records');
    // Logged with the object's key and the member's range, and the tree path.
    assert.match(
      logged,
      `${archiveKey} bytes ${a.entry.offset}+${a.entry.length} (${treeFile(A)} of version ${live.version}) ` +
        'do not match the sha256 its index records',
    );
    assert.match(logged, `${archiveKey} bytes ${b.entry.offset}+${b.entry.length} (${treeFile(B)}`);

    // Repaired: the right documents, so the wrong bytes were never cached, nor the 503.
    await restore();
    assert.is((await request(worker.url, portfolio(A))).text, expected(A));
    assert.is((await request(worker.url, portfolio(B), { headers: { 'Accept-Encoding': 'gzip' } })).text, expected(B));

    // A truncated archive: C's member (not read yet) lies past the cut.
    const c = await memberOf(original, live, treeFile(C));
    await put(archiveKey, original.get(archiveKey)!.subarray(0, c.entry.offset + 10));
    assertRefused(await request(worker.url, portfolio(C)), 'truncated archive');
    await put(archiveKey, original.get(archiveKey)!.subarray(0, Math.max(0, c.entry.offset - 1)));
    assertRefused(await request(worker.url, portfolio(C)), 'archive cut before the member');
    await restore();
    assert.is((await request(worker.url, portfolio(C))).text, expected(C));
  } finally {
    await worker.close();
  }
});

test('a deleted or cut index, and a deleted pointer: 503, and right again once restored', async () => {
  const { out } = await tree();
  const worker = await startWorkerd({ dir: out, port: 0, host: '127.0.0.1' });
  try {
    const { bucket } = worker;
    const pointerText = new TextDecoder().decode(await (await bucket.get(POINTER_KEY))!.arrayBuffer());
    const live = parsePointer(pointerText)!;
    const indexKey = `${versionPrefix(live.version)}${packFolder({ index: 1, count: 1 })}${INDEX_NAME}`;
    const index = new Uint8Array(await (await bucket.get(indexKey))!.arrayBuffer());
    const expected = fs.readFileSync(path.join(out, treeFile(A)), 'utf8');
    // Before any document is read: nothing of the version is held yet.
    await bucket.delete([indexKey]);
    assertRefused(await request(worker.url, portfolio(A)), 'deleted index');
    assertRefused(await request(worker.url, '/v1/seasons'), 'deleted index');
    await bucket.put(indexKey, index.slice(0, index.length - 64), { httpMetadata: {} });
    assertRefused(await request(worker.url, portfolio(A)), 'cut index');
    await bucket.put(indexKey, new Uint8Array(index), { httpMetadata: {} });
    assert.is((await request(worker.url, portfolio(A))).text, expected);
    // The pointer is read again after 5 s: a deleted one is a 503 from then on, until restored.
    await bucket.delete([POINTER_KEY]);
    await new Promise((resolve) => setTimeout(resolve, 5_200));
    assertRefused(await request(worker.url, portfolio(B)), 'deleted pointer');
    await bucket.put(POINTER_KEY, pointerText, { httpMetadata: {} });
    assert.is((await request(worker.url, portfolio(A))).text, expected);
  } finally {
    await worker.close();
  }
});

test('serve --from over a bucket whose member was replaced and whose archive was cut in S3: 503, never the wrong document', async () => {
  const { out } = await tree();
  Object.assign(process.env, S3_CREDENTIALS);
  const s3 = await startS3Server();
  const client = new S3Client({
    endpoint: s3.endpoint,
    region: 'auto',
    forcePathStyle: true,
    credentials: { accessKeyId: S3_CREDENTIALS.AWS_ACCESS_KEY_ID, secretAccessKey: S3_CREDENTIALS.AWS_SECRET_ACCESS_KEY },
  });
  try {
    const prefix = 'nightly/';
    await runPublish({ dir: out, to: `s3://${BUCKET}/nightly`, endpoint: s3.endpoint, concurrency: 8, maxAttempts: 3, progress: 'quiet' });
    const read = async (key: string) =>
      new Uint8Array(await (await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }))).Body!.transformToByteArray());
    const live = parsePointer(new TextDecoder().decode(await read(`${prefix}${POINTER_KEY}`)))!;
    const folder = `${prefix}${versionPrefix(live.version)}${packFolder({ index: 1, count: 1 })}`;
    const objects = new Map([[`${folder}${INDEX_NAME}`, await read(`${folder}${INDEX_NAME}`)]]);
    const a = await memberOf(objects, live, treeFile(A), prefix);
    const c = await memberOf(objects, live, treeFile(C), prefix);
    const archive = await read(a.key);
    // A's member replaced by another valid gzip document; the archive cut inside C's member.
    const altered = replaced(archive, a.entry, otherDocument(a.entry.length)).subarray(
      0,
      Math.max(a.entry.offset + a.entry.length, c.entry.offset + 5),
    );
    await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: a.key, Body: altered }));
    const worker = await startWorkerdFromBucket({ from: `s3://${BUCKET}/nightly`, endpoint: s3.endpoint, port: 0, host: '127.0.0.1' });
    try {
      assertRefused(await request(worker.url, portfolio(A)), 'replaced member');
      if (c.entry.offset > a.entry.offset) assertRefused(await request(worker.url, portfolio(C)), 'cut archive');
    } finally {
      await worker.close();
    }
    // The index deleted in S3: the version cannot be served, and serve says so (or answers 503).
    await client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: `${folder}${INDEX_NAME}` }));
    const second = await startWorkerdFromBucket({ from: `s3://${BUCKET}/nightly`, endpoint: s3.endpoint, port: 0, host: '127.0.0.1' });
    try {
      assertRefused(await request(second.url, portfolio(B)), 'deleted index');
    } finally {
      await second.close();
    }
  } finally {
    client.destroy();
    await s3.close();
  }
});

test.run();
