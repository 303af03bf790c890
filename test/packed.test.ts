/**
 * `build --packed` (tree/packed-folder.ts): the shard written as publish stores it. Its members
 * are the plain build's files byte for byte; verify proves it and names every tampering a plain
 * tree's check names, plus an altered, missing or extra member, index or manifest; publish sends
 * its archives as they are; serve answers it as it answers the plain tree.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import tar from 'tar-stream';
import { build, tempDir, type Built } from './helpers/fixtures.ts';
import { API_TABLES } from './helpers/api-tree.ts';
import { request } from './helpers/http.ts';
import { withHost } from './helpers/hosts.ts';
import { BUCKET, S3_CREDENTIALS, startS3Server } from './helpers/s3-server.ts';
import { verifyTree } from '../tree/verify.ts';
import { PackedFolderSchema, type PackedFolder } from '../schemas/packed-folder.ts';
import { PACKED_DESCRIPTOR, PACKED_MANIFEST, packedArchivePath, packedIndexPath, pathHashOfSync } from '../tree/packed-folder.ts';
import { memberHeader, memberPadding, readMemberHeader, ARCHIVE_END } from '../tree/pack-archive.ts';
import { buildIndex, readEntries } from '../tree/pack-index.ts';
import { isPublished } from '../tree/bucket.ts';
import { runPublish } from '../publish/index.ts';
import { manifestText, versionIdOf } from '../publish/read-tree.ts';
import { readCheckedTree } from '../publish/checked-tree.ts';
import { Progress } from '../core/progress.ts';

let plain: Built;
let packed: Built;

test.before(async () => {
  plain = await build(API_TABLES);
  packed = await build(API_TABLES, { packed: true });
});

const SHARD = { index: 1, count: 1 };
const real = (dir: string) => fs.realpathSync(dir);
const descriptorOf = (dir: string): PackedFolder =>
  PackedFolderSchema.parse(JSON.parse(fs.readFileSync(path.join(dir, PACKED_DESCRIPTOR), 'utf8')));

/** Every file of a tree of files, by tree path. */
function treeFiles(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const absolute = path.join(entry.parentPath, entry.name);
    files.set(path.relative(dir, absolute).split(path.sep).join('/'), fs.readFileSync(absolute));
  }
  return files;
}

/** Every member of a packed folder's archives, unpacked by tar-stream (a reader that is not the product's), gunzipped. */
async function unpacked(dir: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  const { pack } = descriptorOf(dir);
  for (let archive = 1; archive <= pack.archives; archive++) {
    const extract = tar.extract();
    extract.on('entry', (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk) => void chunks.push(chunk as Buffer));
      stream.on('end', () => {
        const bytes = Buffer.concat(chunks);
        if (header.name.endsWith('.gz')) files.set(header.name.slice(0, -3), zlib.gunzipSync(bytes));
        else files.set(header.name, bytes);
        next();
      });
    });
    const finished = new Promise<void>((resolve, reject) => extract.on('finish', () => resolve()).on('error', reject));
    extract.end(fs.readFileSync(path.join(dir, packedArchivePath(SHARD, archive))));
    await finished;
  }
  return files;
}

test("a packed build's members are the plain build's files, byte for byte, but the static hosts' own two", async () => {
  const files = treeFiles(real(plain.out));
  const members = await unpacked(real(packed.out));
  assert.equal([...members.keys()].sort(), [...files.keys()].filter(isPublished).sort());
  for (const [file, bytes] of members) assert.ok(bytes.equals(files.get(file)!), file);
  assert.equal([...files.keys()].filter((file) => !isPublished(file)).sort(), ['_headers', '_redirects']);
  // No file per document: the folder holds its descriptor, its manifest and its pack only.
  assert.equal(fs.readdirSync(real(packed.out)).sort(), ['manifest.sha256.gz', 'pack', 'packed.json']);
  const descriptor = descriptorOf(packed.out);
  assert.is(descriptor.files, members.size);
  assert.is(
    descriptor.rawBytes,
    [...members.values()].reduce((sum, bytes) => sum + bytes.length, 0),
  );
  assert.equal(descriptor.build, plain.summary && descriptor.build);
  // The manifest is the members' lines in path order: publish's record of the shard, and so the plain tree's version.
  const text = zlib.gunzipSync(fs.readFileSync(path.join(packed.out, PACKED_MANIFEST))).toString();
  const lines = [...members.keys()]
    .sort()
    .map((file) => `${crypto.createHash('sha256').update(members.get(file)!).digest('hex')}  ${file}\n`);
  assert.is(text, lines.join(''));
  const tree = await readCheckedTree({ dir: plain.out, progress: new Progress('quiet') });
  assert.is(versionIdOf(descriptor.lastClosedDay, text), versionIdOf(tree.lastClosedDay, manifestText(tree.files)));
});

test('verify proves a packed folder with the checks of a plain tree', async () => {
  const result = await verifyTree(packed.out, { threads: 0 });
  assert.equal(result.failures, []);
  assert.is(result.coverage, 'the whole tree');
  const plainResult = await verifyTree(plain.out, { threads: 0 });
  assert.is(result.files, plainResult.files);
  assert.is(result.wallets, plainResult.wallets);
});

/** A copy of the packed folder to tamper with. */
function copyOfPacked(): string {
  const dir = path.join(tempDir('ws-packed-tamper-'), 'folder');
  fs.cpSync(real(packed.out), dir, { recursive: true });
  return dir;
}

/** The descriptor made to agree again with the folder's files (as a careful tamperer would), so that each check is tested alone. */
function reseal(dir: string): void {
  const descriptor = descriptorOf(dir);
  const sealed = (file: string) => {
    const bytes = fs.readFileSync(path.join(dir, file));
    return { bytes: bytes.length, sha256: crypto.createHash('sha256').update(bytes).digest('hex') };
  };
  descriptor.archives = descriptor.archives.map((_, i) => sealed(packedArchivePath(SHARD, i + 1)));
  descriptor.index = sealed(packedIndexPath(SHARD));
  const manifest = fs.readFileSync(path.join(dir, PACKED_MANIFEST));
  descriptor.manifest = {
    ...sealed(PACKED_MANIFEST),
    textSha256: crypto.createHash('sha256').update(zlib.gunzipSync(manifest)).digest('hex'),
  };
  fs.writeFileSync(path.join(dir, PACKED_DESCRIPTOR), JSON.stringify(descriptor));
}

interface Member {
  name: string;
  header: Buffer;
  data: Buffer;
}

/** The members of the first archive, and a writer of an archive of other members (headers as the product writes them). */
function membersOf(dir: string): Member[] {
  const bytes = fs.readFileSync(path.join(dir, packedArchivePath(SHARD, 1)));
  const members: Member[] = [];
  for (let at = 0; ; ) {
    const header = readMemberHeader(bytes.subarray(at, at + 512));
    if (!header) break;
    members.push({ name: header.name, header: bytes.subarray(at, at + 512), data: bytes.subarray(at + 512, at + 512 + header.size) });
    at += 512 + header.size + memberPadding(header.size);
  }
  return members;
}

function writeArchive(dir: string, members: Member[]): void {
  const parts: Buffer[] = [];
  for (const member of members) parts.push(member.header, member.data, Buffer.alloc(memberPadding(member.data.length)));
  parts.push(Buffer.from(ARCHIVE_END));
  fs.writeFileSync(path.join(dir, packedArchivePath(SHARD, 1)), Buffer.concat(parts));
}

/** The manifest's first line listed twice (the descriptor left to reseal); returns how many lines it had. */
function listFirstLineTwice(dir: string): number {
  const file = path.join(dir, PACKED_MANIFEST);
  const lines = zlib
    .gunzipSync(fs.readFileSync(file))
    .toString()
    .split('\n')
    .filter((line) => line !== '');
  fs.writeFileSync(file, zlib.gzipSync(`${[lines[0]!, ...lines].join('\n')}\n`));
  return lines.length;
}

const failuresOf = async (dir: string) => (await verifyTree(dir, { threads: 0 })).failures;
const someWallet = (members: Member[]) => members.findIndex((member) => member.name.endsWith('/portfolio/daily.json.gz'));

test('verify names an altered member (its archive resealed): the file, edited', async () => {
  const dir = copyOfPacked();
  const members = membersOf(dir);
  const i = someWallet(members);
  const document = JSON.parse(zlib.gunzipSync(members[i]!.data).toString());
  document.asOf = '2020-01-01';
  const data = zlib.gzipSync(JSON.stringify(document));
  members[i] = { name: members[i]!.name, header: Buffer.from(memberHeader(members[i]!.name, data.length, 0)), data };
  writeArchive(dir, members);
  reseal(dir);
  const failures = await failuresOf(dir);
  const file = members[i]!.name.slice(0, -3);
  assert.ok(failures.includes(`${file}: edited (its bytes are not the ones the build wrote)`), failures.join('\n'));
  assert.ok(
    failures.some((failure) =>
      /^pack\/1-of-1\/index: the entries of \d+ members? of pack\/1-of-1\/00001\.tar do not point at them/.test(failure),
    ),
    failures.join('\n'),
  );
});

test('verify names a missing member and an extra one', async () => {
  const dir = copyOfPacked();
  const members = membersOf(dir);
  const i = someWallet(members);
  const missing = members[i]!.name.slice(0, -3);
  const extra = Buffer.from('{}');
  const extraMember = { name: 'v1/extra.json', header: Buffer.from(memberHeader('v1/extra.json', extra.length, 0)), data: extra };
  writeArchive(dir, [...members.slice(0, i), ...members.slice(i + 1), extraMember]);
  reseal(dir);
  const failures = await failuresOf(dir);
  assert.ok(failures.includes(`${PACKED_MANIFEST}: lists ${missing}, which no archive holds`), failures.join('\n'));
  assert.ok(
    failures.includes(`${packedArchivePath(SHARD, 1)}: v1/extra.json is an extra member (the index has no entry for it)`),
    failures.join('\n'),
  );
  // The archives are read alongside the documents, and their failures still come first.
  assert.match(failures[0]!, /^(pack\/1-of-1\/|manifest\.sha256\.gz: )/, failures.join('\n'));
});

test('verify names a member the manifest does not list, even when a line listed twice keeps the counts even (all resealed)', async () => {
  const dir = copyOfPacked();
  const members = membersOf(dir);
  const extra = Buffer.from('{}');
  writeArchive(dir, [
    ...members,
    { name: 'v1/extra.json', header: Buffer.from(memberHeader('v1/extra.json', extra.length, 0)), data: extra },
  ]);
  // The extra member gets its index entry, the descriptor one more file, the manifest one line listed twice.
  const indexFile = path.join(dir, packedIndexPath(SHARD));
  const entries = readEntries(fs.readFileSync(indexFile));
  const archiveBytes = fs.statSync(path.join(dir, packedArchivePath(SHARD, 1))).size;
  const offset = archiveBytes - ARCHIVE_END.length - memberPadding(extra.length) - extra.length;
  entries.push({
    ...entries[0]!,
    pathHash: pathHashOfSync('v1/extra.json'),
    archive: 1,
    offset,
    length: extra.length,
    gzip: false,
    sha256: crypto.createHash('sha256').update(extra).digest('hex'),
  });
  const index = buildIndex(entries);
  fs.writeFileSync(indexFile, index.bytes);
  listFirstLineTwice(dir);
  const descriptor = descriptorOf(dir);
  fs.writeFileSync(
    path.join(dir, PACKED_DESCRIPTOR),
    JSON.stringify({ ...descriptor, files: descriptor.files + 1, pack: { ...descriptor.pack, ...index.shape } }),
  );
  reseal(dir);
  const failures = await failuresOf(dir);
  assert.ok(failures.includes(`${PACKED_MANIFEST}: does not list v1/extra.json, which an archive holds`), failures.join('\n'));
  assert.ok(failures.includes(`${PACKED_MANIFEST}: lists a file more than once`), failures.join('\n'));
});

test('verify names a manifest that lists a file twice (its descriptor resealed)', async () => {
  const dir = copyOfPacked();
  const lines = listFirstLineTwice(dir);
  reseal(dir);
  const failures = await failuresOf(dir);
  assert.ok(failures.includes(`${PACKED_MANIFEST}: lists ${lines + 1} files, the archives hold ${lines}`), failures.join('\n'));
});

test('verify names an altered index and an altered manifest', async () => {
  const indexDir = copyOfPacked();
  const indexFile = path.join(indexDir, packedIndexPath(SHARD));
  const index = fs.readFileSync(indexFile);
  const entry = readEntries(index)[3]!;
  // The entry's sha256 (its last 32 bytes) changed: the index no longer agrees with the manifest.
  const at = index.indexOf(Buffer.from(entry.sha256, 'hex'));
  index[at] = index[at]! ^ 0xff;
  fs.writeFileSync(indexFile, index);
  reseal(indexDir);
  const indexFailures = await failuresOf(indexDir);
  assert.ok(
    indexFailures.some((failure) => /^manifest\.sha256\.gz: .*'s sha256 is not the one the index records$/.test(failure)),
    indexFailures.join('\n'),
  );

  const manifestDir = copyOfPacked();
  const file = path.join(manifestDir, PACKED_MANIFEST);
  const lines = zlib.gunzipSync(fs.readFileSync(file)).toString().split('\n');
  lines[5] = `${'0'.repeat(64)}${lines[5]!.slice(64)}`;
  fs.writeFileSync(file, zlib.gzipSync(lines.join('\n')));
  reseal(manifestDir);
  const manifestFailures = await failuresOf(manifestDir);
  assert.ok(
    manifestFailures.includes(`${PACKED_MANIFEST}: ${lines[5]!.slice(66)}'s sha256 is not the one the index records`),
    manifestFailures.join('\n'),
  );
});

test('verify refuses a folder whose archive, index or manifest is not the one its descriptor records (not resealed)', async () => {
  const dir = copyOfPacked();
  fs.appendFileSync(path.join(dir, packedArchivePath(SHARD, 1)), Buffer.alloc(512));
  const failures = await failuresOf(dir);
  assert.equal(failures.length, 1);
  assert.match(failures[0]!, /00001\.tar holds \d+ bytes where packed\.json records \d+/);
  // The files are listed from the manifest: one the descriptor does not record stops verify, named alone.
  const manifestDir = copyOfPacked();
  fs.appendFileSync(path.join(manifestDir, PACKED_MANIFEST), Buffer.alloc(1));
  const manifestFailures = await failuresOf(manifestDir);
  assert.equal(manifestFailures.length, 1, manifestFailures.join('\n'));
  assert.match(manifestFailures[0]!, /^manifest\.sha256\.gz of .* is not the manifest the build wrote/);
  const edited = copyOfPacked();
  const archive = path.join(edited, packedArchivePath(SHARD, 1));
  const bytes = fs.readFileSync(archive);
  bytes[bytes.length - 2000] = bytes[bytes.length - 2000]! ^ 1;
  fs.writeFileSync(archive, bytes);
  assert.ok(
    (await failuresOf(edited)).includes(
      `${packedArchivePath(SHARD, 1)}: its bytes are not the ones the build wrote (its sha256 is not the one packed.json records)`,
    ),
  );
});

test("publish sends a packed folder's archives as they are: the plain tree's version, the archives byte for byte; an edited archive is refused", async () => {
  Object.assign(process.env, S3_CREDENTIALS);
  const s3 = await startS3Server();
  try {
    const to = `s3://${BUCKET}/packed`;
    await runPublish({ dir: packed.out, to, endpoint: s3.endpoint, concurrency: 4, maxAttempts: 2, progress: 'quiet' });
    const client = new S3Client({ endpoint: s3.endpoint, forcePathStyle: true, region: 'us-east-1' });
    const keys = (await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'packed/versions/' }))).Contents!.map((o) => o.Key!);
    const tree = await readCheckedTree({ dir: plain.out, progress: new Progress('quiet') });
    const version = versionIdOf(tree.lastClosedDay, manifestText(tree.files));
    const body = async (key: string) =>
      Buffer.from(await (await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }))).Body!.transformToByteArray());
    const archive = await body(`packed/versions/${version}/pack/1-of-1/00001.tar`);
    assert.ok(archive.equals(fs.readFileSync(path.join(packed.out, packedArchivePath(SHARD, 1)))));
    const index = await body(`packed/versions/${version}/pack/1-of-1/index`);
    assert.ok(index.equals(fs.readFileSync(path.join(packed.out, packedIndexPath(SHARD)))));
    assert.ok(keys.includes(`packed/versions/${version}/_publish/shards/1-of-1.sha256.gz`));
    client.destroy();

    const edited = copyOfPacked();
    const file = path.join(edited, packedArchivePath(SHARD, 1));
    const bytes = fs.readFileSync(file);
    bytes[bytes.length - 2000] = bytes[bytes.length - 2000]! ^ 1;
    fs.writeFileSync(file, bytes);
    const refused = await runPublish({
      dir: edited,
      to: `s3://${BUCKET}/edited`,
      endpoint: s3.endpoint,
      concurrency: 4,
      maxAttempts: 2,
      progress: 'quiet',
    }).catch((error: Error) => error);
    assert.instance(refused, Error);
    assert.match((refused as Error).message, /pack\/1-of-1\/00001\.tar: edited since the build/);
  } finally {
    await s3.close();
  }
});

const ASKED = [
  '/v1/seasons',
  '/v1/leaderboard/s1',
  '/v1/leaderboard/s2',
  '/v1/leaderboard/s9',
  '/v1/openapi.json',
  `/v1/address/0x${'9'.repeat(40)}/portfolio/daily?from=2025-11-01`,
  '/',
  '/v1/nope',
];

test('serve answers a packed folder as it answers the plain tree, on Node and in workerd', async () => {
  const wallets = fs.readdirSync(path.join(plain.out, 'v1/address'));
  const paths = [
    ...ASKED,
    ...wallets.flatMap((wallet) => [
      `/v1/address/${wallet}/portfolio`,
      `/v1/address/${wallet.toUpperCase().replace('0X', '0x')}/portfolio/daily?from=2025-11-10&to=2025-11-20`,
      `/v1/address/${wallet}/points`,
      `/v1/address/${wallet}/points/history?from=2025-11-15`,
    ]),
  ];
  const answersOf = (runtime: 'node' | 'workerd', dir: string) =>
    withHost(runtime, dir, async (base) => {
      const answers = [];
      for (const asked of paths) {
        const answer = await request(base, asked);
        answers.push({ asked, status: answer.status, text: answer.text, etag: answer.headers.etag, type: answer.headers['content-type'] });
      }
      return answers;
    });
  const expected = await answersOf('node', plain.out);
  assert.ok(expected.filter((answer) => answer.status === 200).length >= 10);
  assert.equal(await answersOf('node', packed.out), expected);
  assert.equal(await answersOf('workerd', packed.out), expected);
});

test.run();
