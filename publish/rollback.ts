/**
 * `publish --rollback`: the pointer goes back to the version live before the current one. The
 * version rolled back from stays stored (not in the pointer's history any more) until `--keep`
 * removes it.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { UserError } from '../core/errors.ts';
import { packsOf } from './commit.ts';
import { readPointer, writePointer } from './live-pointer.ts';
import { describe, type Location } from './location.ts';
import { readCommit } from './version-store.ts';

export interface RollbackSummary {
  from: string;
  to: string;
}

export async function rollback(client: S3Client, location: Location, abortSignal?: AbortSignal): Promise<RollbackSummary> {
  const pointer = await readPointer(client, location, abortSignal);
  if (!pointer) throw new UserError(`--rollback: nothing is published at ${describe(location)} (no live.json)`);
  const [target, ...older] = pointer.previous;
  if (!target) throw new UserError(`--rollback: ${describe(location)} has no version before ${pointer.version} to go back to`);
  // A version's commit is written after all its shards are staged: without it the version is not whole.
  const commit = await readCommit(client, location, target, abortSignal);
  if (!commit) {
    throw new UserError(
      `--rollback: the previous version ${target} at ${describe(location)} is incomplete or was removed; nothing was changed`,
    );
  }
  await writePointer(
    client,
    location,
    { version: target, previous: older, publishedAt: new Date().toISOString(), shards: packsOf(commit) },
    abortSignal,
  );
  return { from: pointer.version, to: target };
}
