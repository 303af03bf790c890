import { Command, InvalidArgumentError, Option } from 'commander';
import type { PublishCommandOptions } from '../publish/index.ts';
import { abortOnSignals } from '../core/signals.ts';

export function publishCommand(): Command {
  return new Command('publish')
    .description('upload a built tree to S3, R2 or MinIO under a new version, packed into a few archives and an index, then switch readers to it (atomic, resumable); a shard\'s tree is staged, and --commit makes all shards live at once')
    .option('--dir <dir>', 'the built tree to publish')
    .requiredOption('--to <s3://bucket/prefix>', 'where: a bucket and an optional prefix, e.g. s3://snapshots/prod')
    .option('--endpoint <url>', 'an S3-compatible endpoint (R2: https://<account id>.r2.cloudflarestorage.com, MinIO, a local server); path-style requests')
    .option('--keep <n>', 'afterwards, remove the versions beyond the N newest (at least 2: the live one and the one --rollback returns to)', wholeNumber)
    .option('--rollback', 'switch back to the version live before the current one (no --dir)')
    .option('--commit [id]', 'make a sharded version live once all its shards are staged (no --dir); the id as the stages printed it, else the newest staged version')
    .option('--version <id>', 'with --commit: the staged version to make live (the same as --commit ID)')
    .option('--concurrency <n>', 'connections to the store at most', wholeNumber, 32)
    .option('--max-attempts <n>', 'attempts per request before giving up (throttling, 5xx and network errors are retried with backoff)', wholeNumber, 8)
    .addOption(new Option('--progress <mode>', 'progress output on stderr').choices(['auto', 'tty', 'lines', 'quiet']).default('auto'))
    .action(async (options: PublishCommandOptions) => {
      // Loaded here: the S3 client is only for this command, not for every start of the CLI.
      const { runPublish } = await import('../publish/index.ts');
      const interrupt = abortOnSignals();
      try {
        process.stdout.write(await runPublish(options, interrupt.signal));
      } finally {
        interrupt.dispose();
      }
    });
}

function wholeNumber(text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new InvalidArgumentError('expected a whole number of at least 1');
  return value;
}
