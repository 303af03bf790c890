/**
 * The `publish` command as one call: a validated configuration in, the closing summary out.
 */
import { UserError } from '../core/errors.ts';
import { Progress } from '../core/progress.ts';
import type { ProgressMode } from '../core/progress.ts';
import { keepVersions, MIN_KEEP } from './keep-versions.ts';
import { parseLocation } from './location.ts';
import { publishTree } from './publish-tree.ts';
import { rollback } from './rollback.ts';
import { createStorageClient } from './storage.ts';
import { formatKeepSummary, formatPublishSummary, formatRollbackSummary } from './summary.ts';

export interface PublishCommandOptions {
  dir?: string;
  to: string;
  endpoint?: string;
  keep?: number;
  rollback?: boolean;
  concurrency: number;
  maxAttempts: number;
  progress: ProgressMode;
}

export async function runPublish(options: PublishCommandOptions, abortSignal?: AbortSignal): Promise<string> {
  const location = parseLocation(options.to);
  if (options.rollback && options.dir !== undefined) {
    throw new UserError('--rollback moves the pointer back to the previous version and takes no --dir');
  }
  if (!options.rollback && options.dir === undefined) {
    throw new UserError('--dir is required: the built tree to publish (or give --rollback)');
  }
  if (options.keep !== undefined && options.keep < MIN_KEEP) {
    throw new UserError(`--keep ${options.keep}: expected a whole number of at least ${MIN_KEEP} (the live version and the one --rollback returns to)`);
  }
  if (options.endpoint !== undefined && !/^https?:\/\/[^/]/.test(options.endpoint)) {
    throw new UserError(`--endpoint ${options.endpoint}: expected an http:// or https:// URL, e.g. https://<account id>.r2.cloudflarestorage.com`);
  }
  const client = await createStorageClient({ endpoint: options.endpoint, maxAttempts: options.maxAttempts, concurrency: options.concurrency });
  try {
    let text: string;
    if (options.rollback) {
      text = formatRollbackSummary(await rollback(client, location, abortSignal), location);
    } else {
      const progress = new Progress(options.progress);
      const summary = await publishTree({ dir: options.dir!, location, client, concurrency: options.concurrency, progress, abortSignal });
      text = formatPublishSummary(summary, location);
    }
    if (options.keep !== undefined) text += formatKeepSummary(await keepVersions(client, location, options.keep, abortSignal), location);
    return text;
  } finally {
    client.destroy();
  }
}
