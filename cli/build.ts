import os from 'node:os';
import { Command, Option } from 'commander';
import { buildSnapshot, type BuildRuntime } from '../build/index.ts';
import { buildSummaryJson, formatBuildSummary } from '../build/summary.ts';
import { summaryJsonWriter } from '../core/summary-json.ts';
import type { BuildSummaryJson } from '../schemas/build-summary.ts';
import { DISTANT_NOW_DAYS, MAX_THREADS, resolveBuildConfig } from '../build/config.ts';
import type { ProgressMode } from '../core/progress.ts';
import { UserError } from '../core/errors.ts';
import { memorySize, positiveInteger } from './options.ts';
import { writeBuildReport } from '../build/report.ts';
import { reportTargets } from '../tree/night-report.ts';

/** `runtime`: what the build is given besides its options (none in a real run; build/index.ts). */
export function buildCommand(runtime: BuildRuntime = {}): Command {
  return new Command('build')
    .description('build the /v1 JSON tree from the seven Parquet exports')
    .option('--input <dir>', 'folder holding the seven Parquet files (default data/sample)')
    .option(
      '--prepared <dir>',
      "build one shard from a folder wallet-snapshot prepare wrote (NIGHT/shard-K-of-N), not from the exports; its --now and shard are the folder's",
    )
    .option(
      '--allow-empty',
      'build even when balances.parquet and points.parquet both have zero rows (a tree with no wallet and no participant)',
      false,
    )
    .option('--out <dir>', 'where the tree is published: a symbolic link, switched atomically to each new build kept beside it', 'public')
    .option('--now <iso>', 'build instant, ISO 8601, years 1970 to 9999 (default: the current time); days close in New York')
    .option(
      '--allow-distant-now',
      `build even when --now is before the earliest event in the inputs or more than ${DISTANT_NOW_DAYS} days after the latest`,
      false,
    )
    .option('--shard <k/n>', 'build only the wallets of shard K of N (shared files in every shard)')
    .option(
      '--packed',
      'write the shard packed as publish stores it (archives, index, manifest: docs/publishing.md#packed-builds), each document compressed and hashed as it is made; a tree of files (the default) is what static hosts serve',
      false,
    )
    .option('--manifest <file>', 'also write "<sha256>  <path>" for every file written (for incremental uploads)')
    .option(
      '--summary-json <file>',
      'also write the closing summary as JSON once the tree is live (its schema: BuildSummaryJsonSchema of wallet-snapshot/summaries; docs/cli.md)',
    )
    .option('--report <file>', "also write the night's Markdown report to FILE (it goes to $GITHUB_STEP_SUMMARY when that is set)")
    .option(
      '--threads <n>',
      `threads for DuckDB and for assembling documents, at most ${MAX_THREADS} (or the cores, if more); one more thread writes the files (a CI runner has 2 cores)`,
      positiveInteger,
      2,
    )
    .option('--memory-limit <size>', 'DuckDB memory limit, e.g. 1GB or 512MiB (it spills to disk beyond it)', memorySize, '1GB')
    .addOption(new Option('--progress <mode>', 'progress output').choices(['auto', 'tty', 'lines', 'quiet']).default('auto'))
    .option(
      '--no-sync',
      'do not flush the new tree to the disk before it goes live (faster; after a power loss --out may point at incomplete files)',
    )
    .action(
      async (options: {
        input?: string;
        prepared?: string;
        out: string;
        now?: string;
        shard?: string;
        manifest?: string;
        summaryJson?: string;
        report?: string;
        threads: number;
        memoryLimit: string;
        progress: ProgressMode;
        sync: boolean;
        allowEmpty: boolean;
        allowDistantNow: boolean;
        packed: boolean;
      }) => {
        if (options.prepared !== undefined) {
          // The folder holds the night's inputs, instant and shard: options that name others are refused, not ignored.
          const clashing = (['input', 'now', 'shard'] as const).filter((name) => options[name] !== undefined);
          if (clashing.length > 0)
            throw new UserError(
              `--prepared builds from what prepare wrote: ${clashing.map((name) => `--${name}`).join(' and ')} cannot be given with it (the folder names its inputs, --now and shard)`,
            );
        }
        const config = resolveBuildConfig(options);
        const cores = os.availableParallelism();
        if (config.threads > cores) {
          process.stderr.write(
            `wallet-snapshot: warning: --threads ${config.threads} is more than this machine's ${cores} cores; the threads will take turns on them (no faster, more memory)\n`,
          );
        }
        const writeSummaryJson = options.summaryJson
          ? summaryJsonWriter<BuildSummaryJson>(options.summaryJson, 'the tree was published')
          : null;
        const report = reportTargets(options.report);
        const summary = await buildSnapshot(config, runtime);
        process.stdout.write(formatBuildSummary(summary, config.outDir));
        writeSummaryJson?.(buildSummaryJson(summary, config.outDir));
        writeBuildReport(summary, config.outDir, report);
      },
    );
}
