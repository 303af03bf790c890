/**
 * `verify --from s3://BUCKET[/PREFIX]`: a published version proven in the store, as a scrub of a
 * file system proves its disks. The pointer (or the version asked for) and its commit, each
 * shard's record (the manifest of sha256 lines publish staged), its index, its archives, and every
 * member: its tar header, its bytes against the sha256 the index records and the manifest's. With
 * `--sample N`, the archives are only listed (each present, of the length its index implies) and N
 * members drawn at random are read by range, header and bytes. The bucket format is read through
 * tree/ (bucket.ts, live-pointer.ts, pack-index.ts, pack-archive.ts, manifest-line.ts), as the
 * Worker reads it; nothing is written. Costs: docs/reliability.md, "Scrub".
 */
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import { gunzip } from '../tree/pack-compress.ts';
import type { S3Client } from '@aws-sdk/client-s3';
import pLimit from 'p-limit';
import { EXIT_BAD_INPUT, UserError } from '../core/errors.ts';
import { seededRandom } from '../core/seeded-random.ts';
import { countOf, formatBytes, formatSeconds } from '../core/format.ts';
import { Progress, type ProgressMode } from '../core/progress.ts';
import { archiveName, COMMIT_PATH, INDEX_NAME, packFolder, shardRecordPath, VERSION_ID_PATTERN } from '../tree/bucket.ts';
import type { PackedShard } from '../tree/live-pointer.ts';
import { parseManifestLine } from '../tree/manifest-line.ts';
import { archiveLength, memberName, readMemberHeader } from '../tree/pack-archive.ts';
import { ENTRY_BYTES, findEntry, pathHashFromDigest, readEntries, type IndexEntry } from '../tree/pack-index.ts';
import { packsOf } from './commit.ts';
import { readPointer } from './live-pointer.ts';
import { checkEndpoint, describe, objectKey, parseLocation, pointerKey, type Location } from './location.ts';
import { createStorageClient, listObjects, readObject } from './storage.ts';
import { readCommit } from './version-store.ts';

/** `verify --from` as the CLI gives it. */
export interface VerifyFromOptions {
  from: string;
  endpoint?: string;
  version?: string;
  sample?: number;
  seed?: number;
  maxAttempts?: number;
  /** Seconds (storage.ts). */
  stallTimeout?: number;
  progress: ProgressMode;
}

/** The command: the location checked, a client, the scrub, its summary (or its refusal, exit 1). */
/** The version at `options.from` proved: its summary (problems listed, not thrown) and where it is. */
export async function scrubFrom(
  options: VerifyFromOptions,
  abortSignal?: AbortSignal,
): Promise<{ summary: ScrubSummary; location: Location }> {
  const location = parseLocation(options.from, '--from');
  if (options.endpoint !== undefined) checkEndpoint(options.endpoint, location.bucket);
  if (options.version !== undefined && !VERSION_ID_PATTERN.test(options.version)) {
    throw new UserError(`--version: "${options.version}" is not a version id (e.g. 2025-11-20-c94e01dfee2b395d, as publish printed it)`);
  }
  const client = await createStorageClient({
    endpoint: options.endpoint,
    maxAttempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    concurrency: RANGE_READS_IN_FLIGHT,
    ...(options.stallTimeout === undefined ? {} : { stallTimeoutMs: options.stallTimeout * 1000 }),
  });
  try {
    const summary = await scrubVersion({
      client,
      location,
      version: options.version,
      sample: options.sample,
      seed: options.seed,
      progress: new Progress(options.progress),
      abortSignal,
    });
    return { summary, location };
  } finally {
    client.destroy();
  }
}

interface ScrubOptions {
  client: S3Client;
  location: Location;
  /** A version other than the live one (it must be committed). */
  version?: string;
  /** Members to draw at random instead of reading every archive whole. */
  sample?: number;
  /** The draw's seed; a random one when absent (printed, so that a draw can be made again). */
  seed?: number;
  progress: Progress;
  abortSignal?: AbortSignal;
}

export interface ScrubSummary {
  version: string;
  live: boolean;
  shards: number;
  archives: number;
  /** Members in the version (each shard's copy of the shared files counted), and those whose bytes were read. */
  members: number;
  membersRead: number;
  /** Objects read (whole or by range) and their bytes, and the requests made (listings and retries included). */
  objectsRead: number;
  bytesRead: number;
  requests: number;
  sample: { size: number; seed: number } | null;
  problems: string[];
  seconds: number;
}

/** A member of the version: where the manifest says it is, and what the index says of it. */
interface Member {
  path: string;
  sha256: string;
  entry: IndexEntry;
  /** Its archive's key. */
  archive: string;
}

/** As publish's default. */
const DEFAULT_MAX_ATTEMPTS = 8;
/** Requests in flight for the sample's range reads; archives read whole at once (each up to 64 MiB in memory). */
const RANGE_READS_IN_FLIGHT = 8;
const ARCHIVES_IN_FLIGHT = 2;
const HEADER_BYTES = 512;
/** Problems listed at most; the count is always given. */
const PROBLEMS_SHOWN = 20;

async function scrubVersion(options: ScrubOptions): Promise<ScrubSummary> {
  const started = performance.now();
  const { client, location, progress, abortSignal } = options;
  const where = describe(location);
  const summary: ScrubSummary = {
    version: '',
    live: false,
    shards: 0,
    archives: 0,
    members: 0,
    membersRead: 0,
    objectsRead: 0,
    bytesRead: 0,
    requests: 0,
    sample: null,
    problems: [],
    seconds: 0,
  };
  // Every request sent (each retry too), and the objects and bytes read, as the store counts them.
  client.middlewareStack.add(
    (next) => async (args) => {
      summary.requests++;
      const result = await next(args);
      const request = args.request as { method?: string; query?: Record<string, unknown> };
      const response = result.response as { statusCode?: number; headers?: Record<string, string> };
      if (request.method === 'GET' && response.statusCode !== undefined && response.statusCode < 300) {
        summary.bytesRead += Number(response.headers?.['content-length'] ?? 0);
        if (request.query?.['list-type'] === undefined) summary.objectsRead++;
      }
      return result;
    },
    { step: 'deserialize', name: 'scrubCost', override: true },
  );
  const problem = (text: string) => summary.problems.push(text);
  const read = (key: string, range?: { offset: number; length: number }) =>
    readObject(client, location, key, { range, abortSignal, aftermath: 'nothing was changed' });

  progress.start('read the pointer, the commit, the records and the indexes');
  const pointer = await readPointer(client, location, abortSignal);
  if (!pointer) throw new UserError(`verify --from ${where}: nothing is published there (no ${pointerKey(location)})`);
  const version = options.version ?? pointer.version;
  summary.version = version;
  summary.live = version === pointer.version;
  const commit = await readCommit(client, location, version, abortSignal);
  const commitKey = objectKey(location, version, COMMIT_PATH);
  let shapes: PackedShard[];
  if (!commit) {
    if (!summary.live)
      throw new UserError(
        `verify --from ${where}: version ${version} has no commit (${commitKey} is missing): it was never made live, or is being removed`,
      );
    problem(`${commitKey}: missing (expected the commit of the live version ${version})`);
    shapes = pointer.shards;
  } else {
    shapes = packsOf(commit);
    if (summary.live && JSON.stringify(shapes) !== JSON.stringify(pointer.shards)) {
      problem(
        `${commitKey}: its shards' packs ${JSON.stringify(shapes)} are not the ones the pointer names (${JSON.stringify(pointer.shards)})`,
      );
      shapes = pointer.shards;
    }
  }
  summary.shards = shapes.length;

  const members: Member[] = [];
  /** Each archive's key, with its length as its index implies it. */
  const archives = new Map<string, number>();
  for (let index = 1; index <= shapes.length; index++) {
    const shard = { index, count: shapes.length };
    const shape = shapes[index - 1]!;
    const recordKey = objectKey(location, version, shardRecordPath(shard));
    const record = await read(recordKey);
    if (!record) {
      problem(`${recordKey}: missing (expected shard ${index} of ${shapes.length}'s manifest)`);
      continue;
    }
    const text = (
      record.bytes[0] === 0x1f && record.bytes[1] === 0x8b ? zlib.gunzipSync(record.bytes) : Buffer.from(record.bytes)
    ).toString('utf8');
    const digest = sha256(Buffer.from(text, 'utf8'));
    const recorded = commit?.records.find((each) => each.shard === index)?.sha256 ?? record.metadata.sha256;
    if (digest !== recorded) {
      problem(`${recordKey}: altered (expected its manifest's sha256 ${recorded}, as the commit records it; found ${digest})`);
      continue;
    }
    const folder = objectKey(location, version, packFolder(shard));
    const indexKey = `${folder}${INDEX_NAME}`;
    const index_ = await read(indexKey);
    if (!index_) {
      problem(`${indexKey}: missing (expected shard ${index}'s index of ${shape.length * ENTRY_BYTES} bytes)`);
      continue;
    }
    if (index_.bytes.length !== shape.length * ENTRY_BYTES) {
      problem(
        `${indexKey}: ${index_.bytes.length < shape.length * ENTRY_BYTES ? 'truncated' : 'altered'} (expected ${shape.length * ENTRY_BYTES} bytes, ${shape.length} slots; found ${index_.bytes.length})`,
      );
      continue;
    }
    const lines = text.split('\n').filter((line) => line !== '');
    const entries = readEntries(index_.bytes);
    if (entries.length !== lines.length)
      problem(`${indexKey}: altered (expected ${lines.length} entries, one per line of the manifest; found ${entries.length})`);
    const ends = new Map<number, number>();
    for (const line of lines) {
      const parsed = parseManifestLine(line);
      if (!parsed) {
        problem(`${recordKey}: holds a line that is not "<sha256>  <tree path>": ${line.slice(0, 80)}`);
        continue;
      }
      const pathHash = pathHashFromDigest(crypto.createHash('sha256').update(parsed.path).digest());
      // Found as the Worker finds it: from its home slot, within the window the pointer records.
      const entry = findEntry(index_.bytes, 0, pathHash, shape);
      if (!entry) {
        problem(`${indexKey}: has no entry for ${parsed.path} (expected one within ${shape.window} slots of its home slot)`);
        continue;
      }
      if (entry.sha256 !== parsed.sha256) {
        problem(
          `${indexKey}: the entry of ${parsed.path} records sha256 ${entry.sha256}; the manifest ${recordKey} records ${parsed.sha256}`,
        );
        continue;
      }
      if (entry.archive > shape.archives) {
        problem(`${indexKey}: the entry of ${parsed.path} names archive ${entry.archive}; the shard has ${shape.archives}`);
        continue;
      }
      const archive = `${folder}${archiveName(entry.archive)}`;
      ends.set(entry.archive, Math.max(ends.get(entry.archive) ?? 0, entry.offset + entry.length));
      members.push({ path: parsed.path, sha256: parsed.sha256, entry, archive });
    }
    for (let archive = 1; archive <= shape.archives; archive++)
      archives.set(`${folder}${archiveName(archive)}`, archiveLength(ends.get(archive) ?? 0));
  }
  summary.members = members.length;
  summary.archives = archives.size;

  const byArchive = new Map<string, Member[]>();
  for (const member of members) byArchive.set(member.archive, [...(byArchive.get(member.archive) ?? []), member]);
  if (options.sample !== undefined) {
    const seed = options.seed ?? crypto.randomInt(2 ** 31);
    summary.sample = { size: Math.min(options.sample, members.length), seed };
    progress.start('list the archives');
    const stored = new Map<string, number>();
    for await (const object of listObjects(client, location, objectKey(location, version, 'pack/'), abortSignal))
      stored.set(object.key, object.size);
    for (const [key, length] of archives) {
      const size = stored.get(key);
      if (size === undefined)
        problem(`${key}: missing (expected an archive of ${length} bytes holding ${countOf(byArchive.get(key)?.length ?? 0, 'member')})`);
      else if (size !== length)
        problem(`${key}: ${size < length ? 'truncated' : 'altered'} (expected ${length} bytes, as its index implies; found ${size})`);
    }
    const drawn = draw(members.length, summary.sample.size, seed).map((at) => members[at]!);
    progress.start(`read ${countOf(drawn.length, 'member')} drawn at random (seed ${seed})`);
    const limit = pLimit(RANGE_READS_IN_FLIGHT);
    await Promise.all(
      drawn.map((member) =>
        limit(async () => {
          if (stored.get(member.archive) !== archives.get(member.archive)) return; // its archive's problem is named already
          const from = member.entry.offset - HEADER_BYTES;
          const bytes = await read(member.archive, { offset: from, length: HEADER_BYTES + member.entry.length });
          if (!bytes) problem(`${member.archive}: missing (expected it to hold ${member.path})`);
          else checkMember(member, bytes.bytes, from, problem);
          summary.membersRead++;
          progress.tick(summary.membersRead, drawn.length, 'members');
        }),
      ),
    );
  } else {
    progress.start(`read ${countOf(archives.size, 'archive')} whole`);
    const limit = pLimit(ARCHIVES_IN_FLIGHT);
    await Promise.all(
      [...archives].map(([key, length]) =>
        limit(async () => {
          const held = (byArchive.get(key) ?? []).sort((a, b) => a.entry.offset - b.entry.offset);
          const archive = await read(key);
          if (!archive) {
            problem(`${key}: missing (expected an archive of ${length} bytes holding ${countOf(held.length, 'member')})`);
            return;
          }
          if (archive.bytes.length !== length)
            problem(
              `${key}: ${archive.bytes.length < length ? 'truncated' : 'altered'} (expected ${length} bytes, as its index implies; found ${archive.bytes.length})`,
            );
          else checkArchiveMembers(key, archive.bytes, held.length, problem);
          for (const member of held) {
            checkMember(member, archive.bytes, 0, problem);
            summary.membersRead++;
          }
          progress.tick(summary.membersRead, members.length, 'members');
        }),
      ),
    );
  }
  progress.end();
  summary.seconds = (performance.now() - started) / 1000;
  return summary;
}

/** One member in `bytes` (which start at `from` in its archive): its header, and its bytes against the sha256 recorded. */
function checkMember(member: Member, bytes: Uint8Array, from: number, problem: (text: string) => void): void {
  const { entry } = member;
  const start = entry.offset - from;
  if (start < HEADER_BYTES || start + entry.length > bytes.length) {
    problem(
      `${member.archive}: truncated (expected ${member.path} at bytes ${entry.offset} to ${entry.offset + entry.length}; found ${from + bytes.length} bytes)`,
    );
    return;
  }
  const header = readMemberHeader(bytes.subarray(start - HEADER_BYTES, start));
  const name = memberName(member.path, entry.gzip);
  if (!header || header.name !== name || header.size !== entry.length) {
    const found = header ? `${header.name} of ${header.size} bytes` : 'no tar header';
    problem(
      `${member.archive}: altered (expected the member ${name} of ${entry.length} bytes at byte ${entry.offset - HEADER_BYTES}; found ${found})`,
    );
    return;
  }
  const stored = bytes.subarray(start, start + entry.length);
  let content: Uint8Array;
  try {
    content = entry.gzip ? gunzip(stored) : stored;
  } catch (error) {
    problem(`${member.archive}: altered (the member ${name} is not gzip: ${(error as Error).message})`);
    return;
  }
  const found = sha256(content);
  if (found !== member.sha256)
    problem(
      `${member.archive}: altered (expected ${member.path} with sha256 ${member.sha256}, as the index and the manifest record it; found ${found})`,
    );
}

/** An archive read whole holds exactly `expected` members, one after the other, then the end blocks. */
function checkArchiveMembers(key: string, bytes: Uint8Array, expected: number, problem: (text: string) => void): void {
  let at = 0;
  let found = 0;
  while (at + HEADER_BYTES <= bytes.length && bytes.subarray(at, at + HEADER_BYTES).some((byte) => byte !== 0)) {
    const header = readMemberHeader(bytes.subarray(at, at + HEADER_BYTES));
    if (!header) {
      problem(`${key}: altered (expected a tar header at byte ${at}; found none)`);
      return;
    }
    found++;
    at += HEADER_BYTES + header.size + ((HEADER_BYTES - (header.size % HEADER_BYTES)) % HEADER_BYTES);
  }
  if (found !== expected) problem(`${key}: altered (expected ${countOf(expected, 'member')}, as the index records; found ${found})`);
}

/** `count` distinct positions of `total`, drawn with a seeded generator (a partial Fisher-Yates shuffle). */
export function draw(total: number, count: number, seed: number): number[] {
  const random = seededRandom(seed);
  const positions = new Map<number, number>();
  const drawn: number[] = [];
  for (let i = 0; i < count; i++) {
    const j = i + Math.floor(random() * (total - i));
    drawn.push(positions.get(j) ?? j);
    positions.set(j, positions.get(i) ?? i);
  }
  return drawn;
}

const sha256 = (bytes: Uint8Array) => crypto.createHash('sha256').update(bytes).digest('hex');

/** The closing summary on stdout; a version with problems is refused (exit 1), each named. */
export function formatScrub(summary: ScrubSummary, location: Location): string {
  const where = describe(location);
  const what = `version ${summary.version}${summary.live ? ' (live)' : ''} at ${where}`;
  const checked = summary.sample
    ? `${countOf(summary.sample.size, 'member')} of ${summary.members} drawn at random (seed ${summary.sample.seed}; --seed ${summary.sample.seed} draws them again), each read by range: its tar header and its bytes against the sha256 the index and the manifest record`
    : `every member of its ${countOf(summary.archives, 'archive')} (${summary.membersRead}), its tar header and its bytes against the sha256 the index and the manifest record`;
  const cost = `read ${countOf(summary.objectsRead, 'object')} (${formatBytes(summary.bytesRead)}) in ${countOf(summary.requests, 'request')}, ${formatSeconds(summary.seconds)}`;
  if (summary.problems.length > 0) {
    const shown = summary.problems
      .slice(0, PROBLEMS_SHOWN)
      .map((text) => `  - ${text}`)
      .join('\n');
    throw new UserError(
      `verify --from: ${what} fails (${countOf(summary.problems.length, 'problem')}${summary.problems.length > PROBLEMS_SHOWN ? `, the first ${PROBLEMS_SHOWN} listed` : ''}):\n${shown}\n(${cost})`,
      EXIT_BAD_INPUT,
    );
  }
  return [
    `verified ${what}: the pointer, the commit, each shard's manifest and index (${countOf(summary.shards, 'shard')}, ${countOf(summary.members, 'member')}, each in its index and its manifest alike), ${countOf(summary.archives, 'archive')} ${summary.sample ? 'listed, each of the length its index implies' : 'read whole'}`,
    `checked ${checked}`,
    cost,
    '',
  ].join('\n');
}

/** `verify --from`'s closing text, or its refusal (exit 1) naming each problem. */
export async function runVerifyFrom(options: VerifyFromOptions, abortSignal?: AbortSignal): Promise<string> {
  const { summary, location } = await scrubFrom(options, abortSignal);
  return formatScrub(summary, location);
}
