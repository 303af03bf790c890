import os from 'node:os';
import { Command, InvalidArgumentError, Option } from 'commander';
import { buildSnapshot } from '../build/index.ts';
import { formatBuildSummary, summaryJsonWriter } from '../build/summary.ts';
import { DISTANT_NOW_DAYS, MAX_THREADS, resolveBuildConfig } from '../build/config.ts';
import { type ProgressMode } from '../core/progress.ts';
import { writeBuildReport } from '../build/report.ts';
import { reportTargets } from '../tree/night-report.ts';

export function buildCommand(): Command {
  return new Command('build')
    .description('build the /v1 JSON tree from the seven Parquet exports')
    .option('--input <dir>', 'folder holding the seven Parquet files', 'data/sample')
    .option('--allow-empty', 'build even when balances.parquet and points.parquet both have zero rows (a tree with no wallet and no participant)', false)
    .option('--out <dir>', 'where the tree is published: a symbolic link, switched atomically to each new build kept beside it', 'public')
    .option('--now <iso>', 'build instant, ISO 8601, years 1970 to 9999 (default: the current time); days close in New York')
    .option('--allow-distant-now', `build even when --now is before the earliest event in the inputs or more than ${DISTANT_NOW_DAYS} days after the latest`, false)
    .option('--shard <k/n>', 'build only the wallets of shard K of N (shared files in every shard)')
    .option('--manifest <file>', 'also write "<sha256>  <path>" for every file written (for incremental uploads)')
    .option('--summary-json <file>', 'also write the closing summary as JSON (for a CI history)')
    .option('--report <file>', "also write the night's Markdown report to FILE (it goes to $GITHUB_STEP_SUMMARY when that is set)")
    .option('--threads <n>', `threads for DuckDB and for assembling documents, at most ${MAX_THREADS} (or the cores, if more); one more thread writes the files (a CI runner has 2 cores)`, positiveInteger, 2)
    .option('--memory-limit <size>', 'DuckDB memory limit, e.g. 1GB or 512MiB (it spills to disk beyond it)', memorySize, '1GB')
    .addOption(new Option('--progress <mode>', 'progress output').choices(['auto', 'tty', 'lines', 'quiet']).default('auto'))
    .option('--no-sync', 'do not flush the new tree to the disk before it goes live (faster; after a power loss --out may point at incomplete files)')
    .action(async (options: { input: string; out: string; now?: string; shard?: string; manifest?: string; summaryJson?: string; report?: string; threads: number; memoryLimit: string; progress: ProgressMode; sync: boolean; allowEmpty: boolean; allowDistantNow: boolean }) => {
      const config = resolveBuildConfig(options);
      const cores = os.availableParallelism();
      if (config.threads > cores) {
        process.stderr.write(`wallet-snapshot: warning: --threads ${config.threads} is more than this machine's ${cores} cores; the threads will take turns on them (no faster, more memory)\n`);
      }
      const writeSummaryJson = options.summaryJson ? summaryJsonWriter(options.summaryJson) : null;
      const report = reportTargets(options.report);
      const summary = await buildSnapshot(config);
      process.stdout.write(formatBuildSummary(summary, config.outDir));
      writeSummaryJson?.(summary);
      writeBuildReport(summary, config.outDir, report);
    });
}

function positiveInteger(text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new InvalidArgumentError('expected a positive integer');
  return value;
}

/**
 * A size DuckDB reads as its memory limit. Checked here because DuckDB only says "Failed to set
 * config", and takes a negative size as no limit at all.
 */
function memorySize(text: string): string {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)\s*$/i.exec(text);
  if (!match || Number(match[1]) <= 0) throw new InvalidArgumentError('expected a positive size with a unit: B, KB, MB, GB, TB, KiB, MiB, GiB or TiB (e.g. 1GB)');
  return text.trim();
}
