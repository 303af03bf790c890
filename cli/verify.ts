import fs from 'node:fs';
import path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { verifyTree } from '../tree/verify.ts';
import { UserError } from '../core/errors.ts';
import { countOf } from '../core/format.ts';
import { abortOnSignals } from '../core/signals.ts';
import { Progress } from '../core/progress.ts';
import type { VerifyFromOptions } from '../publish/scrub.ts';
import { parseShard } from '../core/shard.ts';
import { positiveInteger, seconds } from './options.ts';
import { summaryJsonWriter } from '../core/summary-json.ts';
import { VerifySummaryJsonSchema, type VerifySummaryJson } from '../schemas/verify-summary.ts';

/** A tree's options, and those of `--from` (a version in object storage, publish/scrub.ts). */
interface VerifyOptions extends Omit<VerifyFromOptions, 'from'> {
  dir: string;
  shard?: string;
  from?: string;
  summaryJson?: string;
}

export function verifyCommand(): Command {
  return new Command('verify')
    .description(
      'check a whole tree against the response schemas and its cross-file invariants; with --from, prove a version published in object storage',
    )
    .option('--dir <dir>', 'the tree to check', 'public')
    .option('--shard <k/n>', 'the tree is shard K of N of a sharded build (its participants only)')
    .option(
      '--from <s3://bucket/prefix>',
      "prove the live version published there instead: the pointer, every index and archive, every member's bytes (sha256)",
    )
    .option('--endpoint <url>', 'with --from: an S3-compatible endpoint (R2, MinIO, a local server)')
    .option('--version <id>', 'with --from: a committed version other than the live one')
    .option('--sample <n>', 'with --from: read N members drawn at random (by range) instead of every archive whole', positiveInteger)
    .option('--seed <n>', "with --sample: the draw's seed (printed by every run; a random one when absent)", seed)
    .option('--max-attempts <n>', 'with --from: attempts per request before giving up (default 8)', positiveInteger)
    .option('--stall-timeout <seconds>', 'with --from: a request silent this long is abandoned and retried (default 30)', seconds)
    .addOption(new Option('--progress <mode>', 'progress output').choices(['auto', 'tty', 'lines', 'quiet']).default('auto'))
    .option(
      '--summary-json <file>',
      'also write the outcome as JSON, passed or failed (its schema: VerifySummaryJsonSchema of wallet-snapshot/summaries; docs/cli.md)',
    )
    .action(async (options: VerifyOptions, command: Command) => {
      const started = performance.now();
      const writeSummaryJson = options.summaryJson
        ? summaryJsonWriter<VerifySummaryJson>(options.summaryJson, 'the tree was verified')
        : null;
      if (options.from !== undefined) {
        if (command.getOptionValueSource('dir') === 'cli' || options.shard !== undefined)
          throw new UserError('--from proves a version in object storage and takes no --dir or --shard');
        // Loaded here: the S3 client is only for this use of the command.
        const { scrubFrom, formatScrub } = await import('../publish/scrub.ts');
        const interrupt = abortOnSignals();
        try {
          const { summary, location } = await scrubFrom({ ...options, from: options.from }, interrupt.signal);
          writeSummaryJson?.(
            VerifySummaryJsonSchema.parse({
              command: 'verify',
              ok: summary.problems.length === 0,
              target: options.from,
              shard: null,
              coverage: `version ${summary.version}${summary.live ? ' (live)' : ''}: ${summary.sample ? `${summary.membersRead} of ${summary.members} members drawn` : `all ${summary.members} members`}`,
              files: summary.membersRead,
              wallets: 0,
              failures: summary.problems.slice(0, 20),
              truncated: summary.problems.length > 20,
              seconds: (performance.now() - started) / 1000,
              store: {
                version: summary.version,
                live: summary.live,
                shards: summary.shards,
                archives: summary.archives,
                members: summary.members,
                membersRead: summary.membersRead,
                objectsRead: summary.objectsRead,
                bytesRead: summary.bytesRead,
                requests: summary.requests,
                sample: summary.sample,
              },
            }),
          );
          process.stdout.write(formatScrub(summary, location));
        } finally {
          interrupt.dispose();
        }
        return;
      }
      for (const name of ['endpoint', 'version', 'sample', 'seed', 'maxAttempts', 'stallTimeout'] as const)
        if (options[name] !== undefined)
          throw new UserError(
            `--${name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)} goes with --from (a version in object storage)`,
          );
      const shard = options.shard === undefined ? null : parseShard(options.shard);
      // As build and serve say of a folder that is not there, rather than a verification of nothing.
      if (!fs.existsSync(options.dir)) {
        throw new UserError(
          `tree directory ${path.resolve(options.dir)} does not exist (set it with --dir DIR: the --out of wallet-snapshot build)`,
        );
      }
      const result = await verifyTree(options.dir, { shard, progress: new Progress(options.progress) });
      writeSummaryJson?.(
        VerifySummaryJsonSchema.parse({
          command: 'verify',
          ok: result.failures.length === 0,
          target: options.dir,
          shard: shard && { index: shard.index, count: shard.count },
          coverage: result.coverage,
          files: result.files,
          wallets: result.wallets,
          failures: result.failures,
          truncated: result.truncated,
          seconds: (performance.now() - started) / 1000,
          store: null,
        }),
      );
      if (result.failures.length > 0) {
        const shown = result.failures.map((failure) => `  - ${failure}`).join('\n');
        throw new UserError(
          `${options.dir} fails verification (${result.truncated ? `${result.failures.length}+ problems` : countOf(result.failures.length, 'problem')}, first listed):\n${shown}`,
        );
      }
      process.stdout.write(
        `verified ${options.dir}: ${result.coverage} as the build recorded it (every file present, none extra, every byte as written); ${result.files} documents conform to their schemas and invariants\n`,
      );
    });
}

function seed(text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0 || value >= 2 ** 31)
    throw new InvalidArgumentError('expected a whole number from 0 to 2147483647');
  return value;
}
