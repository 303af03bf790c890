import { Command, InvalidArgumentError, Option } from 'commander';
import { prepareNight, MAX_SHARDS } from '../build/prepare.ts';
import { formatPrepareSummary, prepareSummaryJson } from '../build/summary.ts';
import { summaryJsonWriter } from '../core/summary-json.ts';
import type { PrepareSummaryJson } from '../schemas/prepare-summary.ts';
import { DISTANT_NOW_DAYS, MAX_THREADS, resolveBuildConfig } from '../build/config.ts';
import type { ProgressMode } from '../core/progress.ts';
import { memorySize, positiveInteger } from './options.ts';

export function prepareCommand(): Command {
  return new Command('prepare')
    .description(
      'read and check the exports once, compute what depends on every wallet, and write one self-contained folder per shard (NIGHT/shard-K-of-N) for build --prepared',
    )
    .requiredOption('--input <dir>', 'folder holding the seven Parquet files')
    .requiredOption('--out <dir>', 'the night folder: shard-K-of-N folders are written into it (those of an earlier prepare are replaced)')
    .requiredOption('--shards <n>', `how many shards (1 to ${MAX_SHARDS}): one build job each`, shardCount)
    .option('--now <iso>', 'build instant, ISO 8601, years 1970 to 9999 (default: the current time); every shard builds with it')
    .option('--allow-empty', 'prepare even when balances.parquet and points.parquet both have zero rows', false)
    .option(
      '--allow-distant-now',
      `prepare even when --now is before the earliest event in the inputs or more than ${DISTANT_NOW_DAYS} days after the latest`,
      false,
    )
    .option('--threads <n>', `DuckDB's threads, at most ${MAX_THREADS} (or the cores, if more)`, positiveInteger, 2)
    .option('--memory-limit <size>', 'DuckDB memory limit, e.g. 1GB or 512MiB (it spills to disk beyond it)', memorySize, '1GB')
    .addOption(new Option('--progress <mode>', 'progress output').choices(['auto', 'tty', 'lines', 'quiet']).default('auto'))
    .option(
      '--since <night>',
      "the previous night's folder as prepare wrote it: its unchanged days are reused (a missing or unusable one makes a full night, and the summary says why)",
    )
    .option('--full', 'compute the whole history, whatever --since names', false)
    .option(
      '--summary-json <file>',
      'also write the closing summary as JSON once the shard folders are in place (its schema: PrepareSummaryJsonSchema of wallet-snapshot/summaries; docs/cli.md)',
    )
    .action(
      async (options: {
        input: string;
        out: string;
        shards: number;
        now?: string;
        threads: number;
        memoryLimit: string;
        progress: ProgressMode;
        allowEmpty: boolean;
        allowDistantNow: boolean;
        summaryJson?: string;
        since?: string;
        full: boolean;
      }) => {
        const config = { ...resolveBuildConfig(options), shards: options.shards, since: options.full ? null : (options.since ?? null) };
        const writeSummaryJson = options.summaryJson
          ? summaryJsonWriter<PrepareSummaryJson>(options.summaryJson, "the night's shard folders were written")
          : null;
        const summary = await prepareNight(config);
        process.stdout.write(formatPrepareSummary(summary));
        writeSummaryJson?.(prepareSummaryJson(summary));
      },
    );
}

function shardCount(text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1 || value > MAX_SHARDS)
    throw new InvalidArgumentError(`expected an integer from 1 to ${MAX_SHARDS}`);
  return value;
}
