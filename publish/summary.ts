/** The closing summaries `publish` prints on stdout, and writes as JSON with `--summary-json` (schemas/publish-summary.ts). */
import { countOf, formatBytes, formatSeconds } from '../core/format.ts';
import type { KeepSummary } from './keep-versions.ts';
import { describe, type Location } from './location.ts';
import type { CommitSummary } from './commit.ts';
import type { PublishSummary } from './publish-tree.ts';
import type { StageSummary } from './stage-shard.ts';
import type { RollbackSummary } from './rollback.ts';
import type { Judgement } from '../tree/night-rules.ts';
import { PublishSummaryJsonSchema, type PublishSummaryJson } from '../schemas/publish-summary.ts';

/** A summary's lines as printed: one a line, each ended. */
export function printed(lines: readonly string[]): string {
  return lines.map((line) => `${line}\n`).join('');
}

/** The lines of the summary, the report's too (publish/guard.ts): the first says what happened. */
export function publishSummaryLines(summary: PublishSummary, location: Location): [string, ...string[]] {
  const where = describe(location);
  const head = summary.alreadyLive
    ? `version ${summary.version} is live at ${where} already: nothing to send (${formatSeconds(summary.seconds)})`
    : `published version ${summary.version} to ${where}${summary.replaced ? ` (was ${summary.replaced})` : ''} in ${formatSeconds(summary.seconds)}`;
  return [head, ...(summary.stage ? packLines(summary.stage) : [`${countOf(summary.files, 'file')} stored already`])];
}

/** `endpoint`: the stage's own, given again to the commit it prints. */
export function stageSummaryLines(summary: StageSummary, location: Location, endpoint?: string): [string, ...string[]] {
  const where = describe(location);
  const { index, count } = summary.shard;
  const head = summary.alreadyStaged
    ? `staged shard ${index} of ${count} of version ${summary.version} at ${where} already: nothing to send (${formatSeconds(summary.seconds)})`
    : `staged shard ${index} of ${count} of version ${summary.version} at ${where} in ${formatSeconds(summary.seconds)} (the live version is untouched)`;
  const next = summary.committed
    ? `version ${summary.version} is committed already`
    : `once all ${count} shards are staged: wallet-snapshot publish --commit --to ${where}${endpoint ? ` --endpoint ${endpoint}` : ''} --version ${summary.version}`;
  return [head, ...(summary.alreadyStaged ? [] : packLines(summary)), next];
}

export function commitSummaryLines(summary: CommitSummary, location: Location): [string] {
  const where = describe(location);
  const version = `version ${summary.version} (${summary.shards} shards, ${countOf(summary.files, 'file')})`;
  if (summary.alreadyLive) return [`${version} is live at ${where} already (${formatSeconds(summary.seconds)})`];
  return [
    `committed ${version} at ${where}: live${summary.replaced ? ` (was ${summary.replaced})` : ''}, in ${formatSeconds(summary.seconds)}`,
  ];
}

function packLines(stage: StageSummary): string[] {
  const { pack } = stage;
  return [
    `packed ${countOf(pack.files, 'file')} (${formatBytes(pack.rawBytes)} uncompressed) into ${formatBytes(pack.storedBytes)} of archives and index`,
    `sent ${countOf(pack.sent.objects, 'object')} (${formatBytes(pack.sent.bytes)})` +
      (pack.skipped.objects > 0
        ? `; ${countOf(pack.skipped.objects, 'object')} (${formatBytes(pack.skipped.bytes)}) stored already by a run stopped midway`
        : ''),
  ];
}

export function rollbackSummaryLines(summary: RollbackSummary, location: Location): [string] {
  return [`rolled back ${describe(location)}: live version ${summary.to} (was ${summary.from})`];
}

export function formatKeepSummary(summary: KeepSummary, location: Location): string {
  const removed = summary.removed.length
    ? `removed ${countOf(summary.removed.length, 'version')} (${summary.removed.join(', ')}; ${countOf(summary.objectsRemoved, 'object')})`
    : 'removed no version';
  return `kept ${countOf(summary.kept.length, 'version')} at ${describe(location)} (${summary.kept.join(', ')}); ${removed}\n`;
}

/** The parts every `--summary-json` document of publish has; the move fills in the rest. */
type PublishJsonBase = Pick<PublishSummaryJson, 'target' | 'guard' | 'keep'>;

const NOTHING_SENT = { objects: { sent: 0, skipped: 0, copied: 0 }, bytes: { sent: 0, skipped: 0, copied: 0 } };

function packCounts(stage: StageSummary | null): Pick<PublishSummaryJson, 'objects' | 'bytes'> {
  if (!stage || stage.alreadyStaged) return NOTHING_SENT;
  const { sent, skipped } = stage.pack;
  return {
    objects: { sent: sent.objects, skipped: skipped.objects, copied: 0 },
    bytes: { sent: sent.bytes, skipped: skipped.bytes, copied: 0 },
  };
}

export function publishJson(summary: PublishSummary, base: PublishJsonBase): PublishSummaryJson {
  return PublishSummaryJsonSchema.parse({
    command: 'publish',
    move: 'publish',
    outcome: 'live',
    ...base,
    version: summary.version,
    replaced: summary.replaced,
    already: summary.alreadyLive,
    shard: { index: 1, count: 1 },
    files: summary.files,
    ...packCounts(summary.stage),
    seconds: summary.seconds,
  });
}

export function stageJson(summary: StageSummary, base: PublishJsonBase): PublishSummaryJson {
  return PublishSummaryJsonSchema.parse({
    command: 'publish',
    move: 'stage',
    outcome: 'staged',
    ...base,
    version: summary.version,
    replaced: null,
    already: summary.alreadyStaged,
    shard: summary.shard,
    files: summary.pack.files,
    ...packCounts(summary),
    seconds: summary.seconds,
  });
}

export function commitJson(summary: CommitSummary, base: PublishJsonBase): PublishSummaryJson {
  return PublishSummaryJsonSchema.parse({
    command: 'publish',
    move: 'commit',
    outcome: 'live',
    ...base,
    version: summary.version,
    replaced: summary.replaced,
    already: summary.alreadyLive,
    shard: null,
    files: summary.files,
    ...NOTHING_SENT,
    seconds: summary.seconds,
  });
}

export function rollbackJson(summary: RollbackSummary, base: PublishJsonBase, seconds: number): PublishSummaryJson {
  return PublishSummaryJsonSchema.parse({
    command: 'publish',
    move: 'rollback',
    outcome: 'live',
    ...base,
    version: summary.to,
    replaced: summary.from,
    already: false,
    shard: null,
    files: 0,
    ...NOTHING_SENT,
    seconds,
  });
}

/** A night the guard refused: the version that did not go live, and the live one that stays. */
export function refusedJson(
  move: 'publish' | 'commit',
  refused: { version: string; live: string | null },
  base: PublishJsonBase,
  seconds: number,
): PublishSummaryJson {
  return PublishSummaryJsonSchema.parse({
    command: 'publish',
    move,
    outcome: 'refused',
    ...base,
    version: refused.version,
    replaced: null,
    already: false,
    shard: null,
    files: 0,
    ...NOTHING_SENT,
    seconds,
  });
}

/** The guard's judgement as the JSON document carries it (null: nothing was judged). */
export function guardJson(judgement: Judgement | null): PublishSummaryJson['guard'] {
  if (!judgement) return null;
  return { refused: judgement.refusals.map((row) => row.rule), rows: judgement.rows.map((row) => ({ ...row })) };
}

export function keepJson(summary: KeepSummary | null): PublishSummaryJson['keep'] {
  return summary && { kept: summary.kept, removed: summary.removed, objectsRemoved: summary.objectsRemoved };
}
