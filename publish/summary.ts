/** The closing summaries `publish` prints on stdout. */
import { countOf, formatBytes, formatSeconds } from '../core/format.ts';
import type { KeepSummary } from './keep-versions.ts';
import { describe, type Location } from './location.ts';
import type { CommitSummary } from './commit.ts';
import type { PublishSummary } from './publish-tree.ts';
import type { StageSummary } from './stage-shard.ts';
import type { RollbackSummary } from './rollback.ts';

/** A summary's lines as printed: one a line, each ended. */
export function printed(lines: readonly string[]): string {
  return lines.map((line) => `${line}\n`).join('');
}

export function formatPublishSummary(summary: PublishSummary, location: Location): string {
  return printed(publishSummaryLines(summary, location));
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
export function formatStageSummary(summary: StageSummary, location: Location, endpoint?: string): string {
  return printed(stageSummaryLines(summary, location, endpoint));
}

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

export function formatCommitSummary(summary: CommitSummary, location: Location): string {
  return printed(commitSummaryLines(summary, location));
}

export function commitSummaryLines(summary: CommitSummary, location: Location): [string] {
  const where = describe(location);
  const version = `version ${summary.version} (${summary.shards} shards, ${countOf(summary.files, 'file')})`;
  if (summary.alreadyLive) return [`${version} is live at ${where} already (${formatSeconds(summary.seconds)})`];
  return [`committed ${version} at ${where}: live${summary.replaced ? ` (was ${summary.replaced})` : ''}, in ${formatSeconds(summary.seconds)}`];
}

function packLines(stage: StageSummary): string[] {
  const { pack } = stage;
  return [
    `packed ${countOf(pack.files, 'file')} (${formatBytes(pack.rawBytes)} uncompressed) into ${formatBytes(pack.storedBytes)} of archives and index`,
    `sent ${countOf(pack.sent.objects, 'object')} (${formatBytes(pack.sent.bytes)})` +
      (pack.skipped.objects > 0 ? `; ${countOf(pack.skipped.objects, 'object')} (${formatBytes(pack.skipped.bytes)}) stored already by a run stopped midway` : ''),
  ];
}

export function formatRollbackSummary(summary: RollbackSummary, location: Location): string {
  return printed(rollbackSummaryLines(summary, location));
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
