/** The closing summaries `publish` prints on stdout. */
import { countOf, formatBytes, formatSeconds } from '../core/format.ts';
import type { KeepSummary } from './keep-versions.ts';
import { describe, type Location } from './location.ts';
import type { CommitSummary } from './commit.ts';
import type { PublishSummary } from './publish-tree.ts';
import type { StageSummary } from './stage-shard.ts';
import type { Transfer, TransferSummary } from './upload-version.ts';
import type { RollbackSummary } from './rollback.ts';

export function formatPublishSummary(summary: PublishSummary, location: Location): string {
  const where = describe(location);
  const head = summary.alreadyLive
    ? `version ${summary.version} is live at ${where} already: nothing to send (${formatSeconds(summary.seconds)})`
    : `published version ${summary.version} to ${where}${summary.replaced ? ` (was ${summary.replaced})` : ''} in ${formatSeconds(summary.seconds)}`;
  return [head, ...transferLines(summary), ''].join('\n');
}

export function formatStageSummary(summary: StageSummary, location: Location): string {
  const where = describe(location);
  const { index, count } = summary.shard;
  const head = summary.alreadyStaged
    ? `staged shard ${index} of ${count} of version ${summary.version} at ${where} already: nothing to send (${formatSeconds(summary.seconds)})`
    : `staged shard ${index} of ${count} of version ${summary.version} at ${where} in ${formatSeconds(summary.seconds)} (the live version is untouched)`;
  const next = summary.committed
    ? `version ${summary.version} is committed already`
    : `once all ${count} shards are staged: wallet-snapshot publish --commit --to ${where} --version ${summary.version}`;
  return [head, ...transferLines(summary), next, ''].join('\n');
}

export function formatCommitSummary(summary: CommitSummary, location: Location): string {
  const where = describe(location);
  if (summary.alreadyLive) return `version ${summary.version} (${summary.shards} shards, ${countOf(summary.files, 'file')}) is live at ${where} already (${formatSeconds(summary.seconds)})\n`;
  return `committed version ${summary.version} (${summary.shards} shards, ${countOf(summary.files, 'file')}) at ${where}: live${summary.replaced ? ` (was ${summary.replaced})` : ''}, in ${formatSeconds(summary.seconds)}\n`;
}

function transferLines(summary: TransferSummary): string[] {
  return [
    `uploaded ${transfer(summary.uploaded)}, ${formatBytes(summary.uploaded.sentBytes)} sent`,
    `copied ${transfer(summary.copied)} (server-side, unchanged since the live version)`,
    `skipped ${transfer(summary.skipped)} (stored already)`,
    `closed months of daily documents: uploaded ${countOf(summary.blobs.uploaded.objects, 'blob')} (${formatBytes(summary.blobs.uploaded.rawBytes)} uncompressed), ` +
      `${formatBytes(summary.blobs.uploaded.sentBytes)} sent; ${countOf(summary.blobs.stored.objects, 'blob')} (${formatBytes(summary.blobs.stored.rawBytes)} uncompressed) stored already`,
    `sent ${formatBytes(summary.uploaded.sentBytes + summary.blobs.uploaded.sentBytes)} in all`,
  ];
}

export function formatRollbackSummary(summary: RollbackSummary, location: Location): string {
  return `rolled back ${describe(location)}: live version ${summary.to} (was ${summary.from})\n`;
}

export function formatKeepSummary(summary: KeepSummary, location: Location): string {
  const removed = summary.removed.length
    ? `removed ${countOf(summary.removed.length, 'version')} (${summary.removed.join(', ')}; ${countOf(summary.objectsRemoved, 'object')}) and ${countOf(summary.blobsRemoved, 'blob')} no version refers to`
    : 'removed no version';
  return `kept ${countOf(summary.kept.length, 'version')} at ${describe(location)} (${summary.kept.join(', ')}); ${removed}\n`;
}

function transfer(count: Transfer): string {
  return `${countOf(count.objects, 'object')} (${formatBytes(count.rawBytes)} uncompressed)`;
}
