/** The closing summaries `publish` prints on stdout. */
import { countOf, formatBytes, formatSeconds } from '../core/format.ts';
import type { KeepSummary } from './keep-versions.ts';
import { describe, type Location } from './location.ts';
import type { PublishSummary, Transfer } from './publish-tree.ts';
import type { RollbackSummary } from './rollback.ts';

export function formatPublishSummary(summary: PublishSummary, location: Location): string {
  const where = describe(location);
  const head = summary.alreadyLive
    ? `version ${summary.version} is live at ${where} already: nothing to send (${formatSeconds(summary.seconds)})`
    : `published version ${summary.version} to ${where}${summary.replaced ? ` (was ${summary.replaced})` : ''} in ${formatSeconds(summary.seconds)}`;
  return [
    head,
    `uploaded ${transfer(summary.uploaded)}, ${formatBytes(summary.uploaded.sentBytes)} sent`,
    `copied ${transfer(summary.copied)} (server-side, unchanged since the live version)`,
    `skipped ${transfer(summary.skipped)} (stored already)`,
    `closed months of daily documents: uploaded ${countOf(summary.blobs.uploaded.objects, 'blob')} (${formatBytes(summary.blobs.uploaded.rawBytes)} uncompressed), ` +
      `${formatBytes(summary.blobs.uploaded.sentBytes)} sent; ${countOf(summary.blobs.stored.objects, 'blob')} (${formatBytes(summary.blobs.stored.rawBytes)} uncompressed) stored already`,
    `sent ${formatBytes(summary.uploaded.sentBytes + summary.blobs.uploaded.sentBytes)} in all`,
    '',
  ].join('\n');
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
