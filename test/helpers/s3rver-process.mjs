// s3rver in a process of its own: `node --openssl-legacy-provider s3rver-process.mjs DIR BUCKET`
// prints the port it listens on. s3rver encrypts its listings' continuation tokens with DES,
// which Node's OpenSSL 3 only offers through the legacy provider (without it, every listing
// longer than one page fails with a 500).
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import S3rver from 's3rver';

// s3rver answers a PUT once the body is read, before the file holding it is written and closed:
// a GET or a read of its folder right after can see an empty object. S3 itself is read-after-write
// consistent, so the store's two writes wait here for the file to be closed.
const FilesystemStore = createRequire(import.meta.url)('s3rver/lib/stores/filesystem.js');
const S3Object = createRequire(import.meta.url)('s3rver/lib/models/object.js');

// S3 replaces an object atomically: a reader sees the old bytes or the new ones, never a file
// being written (s3rver truncates it first, and a pointer read during its write would be empty).
// The bytes go to a file beside it, renamed over it once written.
async function writeFully(content, file) {
  const md5 = crypto.createHash('md5');
  let size = 0;
  const measure = new Transform({
    transform(chunk, _encoding, callback) {
      md5.update(chunk);
      size += chunk.length;
      callback(null, chunk);
    },
  });
  const partial = `${file}.${process.pid}.${crypto.randomUUID()}.partial`;
  try {
    await pipeline(Buffer.isBuffer(content) ? [content] : content, measure, fs.createWriteStream(partial));
    await fs.promises.rename(partial, file);
  } catch (error) {
    await fs.promises.rm(partial, { force: true });
    throw error;
  }
  return { size, md5: md5.digest('hex') };
}

/** A small file replaced whole (rename), as writeFully does for an object's bytes. */
async function replaceFile(file, text) {
  const partial = `${file}.${process.pid}.${crypto.randomUUID()}.partial`;
  await fs.promises.writeFile(partial, text);
  await fs.promises.rename(partial, file);
}

// The object's metadata and MD5 too: a read during a write saw an empty metadata.json and answered 500.
const pick = (object, keys) => Object.fromEntries(Object.entries(object).filter(([key]) => keys.includes(key)));
FilesystemStore.prototype.putMetadata = async function putMetadata(bucket, key, metadata, md5) {
  const json = {
    ...pick(metadata, S3Object.ALLOWED_METADATA),
    ...Object.fromEntries(Object.entries(metadata).filter(([name]) => name.startsWith('x-amz-meta-'))),
  };
  if (md5) await replaceFile(this.getResourcePath(bucket, key, 'object.md5'), md5);
  await replaceFile(this.getResourcePath(bucket, key, 'metadata.json'), JSON.stringify(json, null, 2));
};

FilesystemStore.prototype.putObject = async function putObject(object) {
  const file = this.getResourcePath(object.bucket, object.key, 'object');
  await fs.promises.mkdir(path.dirname(file), { recursive: true });
  const { size, md5 } = await writeFully(object.content, file);
  await this.putMetadata(object.bucket, object.key, object.metadata, md5);
  return { size, md5 };
};

FilesystemStore.prototype.putPart = async function putPart(bucket, uploadId, partNumber, content) {
  const file = path.join(this.getResourcePath(bucket, undefined, 'uploads'), uploadId, partNumber.toString());
  await fs.promises.mkdir(path.dirname(file), { recursive: true });
  const { size, md5 } = await writeFully(content, file);
  await fs.promises.writeFile(`${file}.md5`, md5);
  return { size, md5 };
};

const [directory, bucket] = process.argv.slice(2);
const server = new S3rver({ address: '127.0.0.1', port: 0, directory, silent: true, configureBuckets: [{ name: bucket }] });
const address = await server.run();
process.stdout.write(`${address.port}\n`);
process.on('SIGTERM', async () => {
  await server.close();
  process.exit(0);
});
