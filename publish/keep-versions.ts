/**
 * `publish --keep N`: the live version and the N-1 versions before it in the pointer's history
 * stay; older ones are removed. N is at least 2, so that the version `--rollback` returns to is
 * never removed. Versions outside the history (a publish interrupted and never rerun, a version
 * rolled back from) are removed once they are older than the live version's day, so that a
 * publish running at the same time, or a rollback of today, is never pulled from under a reader.
 *
 * The pointer is rewritten first (without the removed versions), then their objects go (each
 * version's archives whole): at no time does the pointer name a version being removed.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { UserError } from '../core/errors.ts';
import { readPointer, writePointer } from './live-pointer.ts';
import { describe, type Location } from './location.ts';
import { deleteVersion, listVersions } from './version-store.ts';

export const MIN_KEEP = 2;

export interface KeepSummary {
  kept: string[];
  removed: string[];
  objectsRemoved: number;
}

export async function keepVersions(client: S3Client, location: Location, keep: number, abortSignal?: AbortSignal): Promise<KeepSummary> {
  if (!Number.isInteger(keep) || keep < MIN_KEEP) {
    throw new UserError(
      `--keep ${keep}: expected a whole number of at least ${MIN_KEEP} (the live version and the one --rollback returns to)`,
    );
  }
  const pointer = await readPointer(client, location, abortSignal);
  if (!pointer) throw new UserError(`--keep: nothing is published at ${describe(location)} (no live.json)`);
  const history = [pointer.version, ...pointer.previous];
  const kept = history.slice(0, keep);
  const liveDay = pointer.version.slice(0, 10);
  const stored = await listVersions(client, location, abortSignal);
  const removed = [...history.slice(keep), ...stored.filter((version) => !history.includes(version) && version.slice(0, 10) < liveDay)];
  if (history.length > keep) {
    await writePointer(client, location, { ...pointer, previous: kept.slice(1) }, abortSignal);
  }
  let objectsRemoved = 0;
  for (const version of removed) objectsRemoved += await deleteVersion(client, location, version, abortSignal);
  return { kept, removed, objectsRemoved };
}
