/**
 * `publish --dir TREE`: a whole tree into object storage, under a version prefix of its own, then
 * the pointer: staged and committed in one command. Stages: read and hash the tree, check it
 * against the build's records, name its version, stage it as shard 1 of 1 (stage-shard.ts: its
 * archives, its index, its record), commit, switch (commit.ts). A shard's tree is only staged.
 */
import { checkTreeBytes, readCheckedTree, type CheckedTree, type PublishOptions } from './checked-tree.ts';
import { goLive } from './commit.ts';
import { readPointer } from './live-pointer.ts';
import { manifestText, versionIdOf } from './read-tree.ts';
import { STORAGE_FORMAT } from '../tree/bucket.ts';
import { stageShard, type StageSummary } from './stage-shard.ts';
import { guardNight, unjudged, type GuardOutcome, type NightToGuard } from './guard.ts';
import { writeNightRecord } from './night-record.ts';
import { NIGHT_SUMMARY_PATH } from '../tree/bucket.ts';

export interface PublishSummary {
  version: string;
  /** The version that was live before, if any. */
  replaced: string | null;
  /** The tree was live already: nothing was sent, the pointer was not touched. */
  alreadyLive: boolean;
  /** The stage, when there was one. */
  stage: StageSummary | null;
  /** The night's guard: the night and its judgement (null: no guard was asked for). */
  guard: GuardOutcome | null;
  files: number;
  seconds: number;
}

/** `checked`: the tree read and checked already (by the command, which told a shard's tree apart). */
export async function publishTree(options: PublishOptions, checked?: CheckedTree, guard?: NightToGuard): Promise<PublishSummary> {
  const started = performance.now();
  const { client, location, progress, abortSignal } = options;
  const tree = checked ?? (await readCheckedTree(options));
  const version = versionIdOf(tree.lastClosedDay, manifestText(tree.files));

  progress.start('compare with the live version');
  const pointer = await readPointer(client, location, abortSignal);
  const summary: PublishSummary = {
    version,
    replaced: pointer?.version ?? null,
    alreadyLive: pointer?.version === version,
    stage: null,
    guard: null,
    files: tree.files.length,
    seconds: 0,
  };
  if (summary.alreadyLive) {
    // Nothing is packed, so nothing else would read the files: a tree edited since is refused here.
    await checkTreeBytes(options, tree);
    if (guard) summary.guard = unjudged(guard, `Version ${version} is live already: nothing moved, nothing judged`);
  } else {
    // The night's guard (docs/reliability.md#guard): a refusal throws here, before anything is sent.
    const context = { what: 'publish', version, live: pointer?.version ?? null };
    if (guard) summary.guard = await guardNight(client, location, guard, context, abortSignal);
    summary.stage = await stageShard(options, tree, version, guard?.night);
    progress.start('switch the live version');
    // Before the pointer is written: the version is staged whole (its archives, index and record),
    // and its night summary stored beside it for the next night's guard.
    if (guard) await writeNightRecord(client, location, version, NIGHT_SUMMARY_PATH, guard.night, abortSignal);
    await goLive(
      client,
      location,
      version,
      { format: STORAGE_FORMAT, shards: 1, records: [summary.stage.record], committedAt: new Date().toISOString() },
      pointer,
      abortSignal,
    );
  }
  progress.end();
  summary.seconds = (performance.now() - started) / 1000;
  return summary;
}
