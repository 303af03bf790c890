/**
 * A tree's files staged into a version, the pointer untouched: packed into archives and an index
 * (pack-shard.ts) under the shard's folder, then the shard's record, which marks it staged. A
 * shard of a sharded build stages into the version every shard of the build derives alike
 * (read-tree.ts, shardedVersionIdOf), so the N jobs of a night never talk to each other;
 * `--commit` (commit.ts) makes it live once all N are staged. A whole tree is shard 1 of 1,
 * staged and committed by one command (publish-tree.ts).
 *
 * A rerun after a kill lists the shard's folder (a few objects) and sends only the archives not
 * stored whole already.
 */
import crypto from 'node:crypto';
import { objectKey } from './location.ts';
import { packFolder, PACK_CONTENT_TYPE, RECORD_CACHE_CONTROL, shardNightSummaryPath } from '../tree/bucket.ts';
import { editedSinceBuild } from './build-records.ts';
import { checkTreeBytes, type CheckedTree, type PublishOptions } from './checked-tree.ts';
import { packShard, type PackSummary, type PackTarget } from './pack-shard.ts';
import { sendPackedArchives } from './packed-tree.ts';
import type { NightSummary } from '../schemas/night-summary.ts';
import { writeNightRecord } from './night-record.ts';
import { manifestText, shardedVersionIdOf } from './read-tree.ts';
import { STORAGE_FORMAT } from '../tree/bucket.ts';
import { listObjects, throwIfInterrupted, writeObject } from './storage.ts';
import { packOf, readCommit, readShardRecord, writeShardRecord, type Commit } from './version-store.ts';

export interface StageSummary {
  version: string;
  shard: { index: number; count: number };
  /** This shard was staged already (the same manifest is stored): nothing was sent. */
  alreadyStaged: boolean;
  /** The version is committed already (live, or live before). */
  committed: boolean;
  /** What was packed and sent; for a shard staged already, its pack as recorded. */
  pack: Omit<PackSummary, 'shape'>;
  /** The shard's record for the commit. */
  record: Commit['records'][number];
  seconds: number;
}

/** `version`: a whole tree's own id (publish-tree.ts); a shard's is derived here. */
export async function stageShard(
  options: PublishOptions,
  tree: CheckedTree,
  version?: string,
  night?: NightSummary,
): Promise<StageSummary> {
  const started = performance.now();
  const { client, location, progress, abortSignal } = options;
  const { files, records } = tree;
  const shard = records.shard;
  const build = records.summaries[0]!.build;
  const id = version ?? shardedVersionIdOf(tree.lastClosedDay, shard.count, build, files);
  const text = manifestText(files);
  const digest = crypto.createHash('sha256').update(text).digest('hex');
  const finish = (summary: Omit<StageSummary, 'seconds'>): StageSummary => {
    progress.end();
    return { ...summary, seconds: (performance.now() - started) / 1000 };
  };

  progress.start(`stage shard ${shard.index} of ${shard.count}`);
  const staged = await readShardRecord(client, location, id, shard, abortSignal);
  const stagedPack = staged?.metadata.sha256 === digest ? packOf(staged.metadata) : null;
  if (stagedPack) {
    // Nothing is packed, so nothing else would read the files: a tree edited since is refused here.
    await checkTreeBytes(options, tree);
    const committed = (await readCommit(client, location, id, abortSignal)) !== null;
    return finish({
      version: id,
      shard,
      alreadyStaged: true,
      committed,
      // Nothing was packed: the tree's bytes are the recorded ones, and its record matches the one stored.
      pack: { files: files.length, rawBytes: 0, sent: { objects: 0, bytes: 0 }, skipped: { objects: 0, bytes: 0 }, storedBytes: 0 },
      record: { shard: shard.index, sha256: digest, files: files.length, pack: stagedPack },
    });
  }

  // What a run stopped midway stored already: the shard's folder holds a few dozen objects at most.
  const folder = objectKey(location, id, packFolder(shard));
  const stored = new Map<string, { size: number; md5: string }>();
  for await (const object of listObjects(client, location, folder, abortSignal))
    stored.set(object.key.slice(folder.length), { size: object.size, md5: object.etag });

  const target: PackTarget = {
    stored,
    put: (name, bytes) =>
      writeObject(
        client,
        location,
        `${folder}${name}`,
        { body: bytes, contentType: PACK_CONTENT_TYPE, cacheControl: RECORD_CACHE_CONTROL },
        abortSignal,
        `uploading ${folder}${name}`,
      ),
  };
  const packing = {
    progress,
    checkInterrupted: () => throwIfInterrupted(abortSignal, 'publishing'),
    edited: (treePath: string, sentBefore: number) => editedSinceBuild(options.dir, treePath, 'publish', sentBefore),
  };
  // A packed folder's archives go as build --packed wrote them; a tree of files is packed as it is read.
  progress.start(`${tree.packed ? 'send the packed' : 'pack'} shard ${shard.index} of ${shard.count} into version ${id}`);
  const packed = tree.packed
    ? await sendPackedArchives(tree.packed, target, packing)
    : await packShard({ ...packing, dir: tree.dir }, files, target);

  // The shard's night summary, for the commit to add up (before the record that makes the shard staged).
  if (night) await writeNightRecord(client, location, id, shardNightSummaryPath(shard), night, abortSignal);
  await writeShardRecord(
    client,
    location,
    id,
    shard,
    {
      text,
      metadata: {
        sha256: digest,
        files: String(files.length),
        build: `${build.now} ${build.inputs}`,
        format: STORAGE_FORMAT,
        pack: JSON.stringify(packed.shape),
      },
    },
    abortSignal,
  );
  const { shape, ...pack } = packed;
  return finish({
    version: id,
    shard,
    alreadyStaged: false,
    committed: false,
    pack,
    record: { shard: shard.index, sha256: digest, files: files.length, pack: shape },
  });
}
