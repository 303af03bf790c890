import fs from 'node:fs';
import path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { buildSnapshot, type BuildSummary } from '../build/index.ts';
import { resolveBuildConfig, type ProgressMode } from '../build/config.ts';
import { countOf, formatSeconds } from '../build/progress.ts';
import { EXIT_CANNOT_WRITE, UserError, isWriteRefused, messageOf } from '../build/errors.ts';

export function buildCommand(): Command {
  return new Command('build')
    .description('build the /v1 JSON tree from the seven Parquet exports')
    .option('--input <dir>', 'folder holding the seven Parquet files', 'data/sample')
    .option('--out <dir>', 'where the tree is published: a symbolic link, switched atomically to each new build kept beside it', 'public')
    .option('--now <iso>', 'build instant, ISO 8601 (default: the current time); days close in New York')
    .option('--shard <k/n>', 'build only the wallets of shard K of N (shared files in every shard)')
    .option('--manifest <file>', 'also write "<sha256>  <path>" for every file written (for incremental uploads)')
    .option('--summary-json <file>', 'also write the closing summary as JSON (for a CI history)')
    .option('--threads <n>', 'threads for DuckDB and for assembling documents; one more thread writes the files (a CI runner has 2 cores)', positiveInteger, 2)
    .option('--memory-limit <size>', 'DuckDB memory limit, e.g. 1GB or 512MiB (it spills to disk beyond it)', memorySize, '1GB')
    .addOption(new Option('--progress <mode>', 'progress output').choices(['auto', 'tty', 'lines', 'quiet']).default('auto'))
    .option('--no-sync', 'do not flush the new tree to the disk before it goes live (faster; after a power loss --out may point at incomplete files)')
    .action(async (options: { input: string; out: string; now?: string; shard?: string; manifest?: string; summaryJson?: string; threads: number; memoryLimit: string; progress: ProgressMode; sync: boolean }) => {
      const config = resolveBuildConfig(options);
      const writeSummaryJson = options.summaryJson ? summaryJsonWriter(options.summaryJson) : null;
      const summary = await buildSnapshot(config);
      process.stdout.write(formatSummary(summary, config.outDir));
      writeSummaryJson?.(summary);
    });
}

/**
 * `--summary-json FILE` is checked before the build, so that a path that cannot be written fails
 * at once (exit 1) and not, as an internal error, after the tree is published.
 */
function summaryJsonWriter(file: string): (summary: BuildSummary) => void {
  try {
    if (fs.existsSync(file)) {
      if (fs.statSync(file).isDirectory()) throw new Error('it is a directory');
      fs.accessSync(file, fs.constants.W_OK);
    } else {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.accessSync(path.dirname(file), fs.constants.W_OK);
    }
  } catch (error) {
    throw new UserError(`--summary-json ${file} cannot be written (${messageOf(error)})`);
  }
  return (summary) => {
    try {
      fs.writeFileSync(file, `${JSON.stringify(summary)}\n`);
    } catch (error) {
      const message = `--summary-json ${file} cannot be written (${messageOf(error)}); the tree was published`;
      throw new UserError(message, isWriteRefused(messageOf(error)) ? EXIT_CANNOT_WRITE : 1);
    }
  };
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

export function formatSummary(summary: BuildSummary, outDir: string): string {
  const seasons = summary.seasons
    .map((season) => `s${season.season} ${season.asOf ?? 'null'} (${countOf(season.participants, 'participant')})`)
    .join(', ');
  const stages = Object.entries(summary.stageSeconds)
    .map(([stage, seconds]) => `${stage} ${formatSeconds(seconds)}`)
    .join(', ');
  const lines = [
    `built ${outDir}: ${countOf(summary.wallets, 'wallet')}, ${countOf(summary.files, 'file')}, ${formatBytes(summary.bytes)} in ${formatSeconds(summary.seconds)}, peak RSS ${formatBytes(summary.peakRssBytes)}`,
    `now: ${summary.now} (last closed day ${summary.lastClosedDay})`,
    `asOf: daily ${summary.dailyAsOf ?? 'null'}; leaderboards ${seasons || 'none'}`,
    `stages: ${stages}`,
    `live: ${outDir} -> ${summary.build}${summary.previousBuild ? ` (the tree it replaced, ${summary.previousBuild}, is kept beside it for a rollback)` : ''}`,
    ...(summary.warnings.length ? summary.warnings.map((warning) => `warning: ${warning}`) : ['warnings: none']),
  ];
  return `${lines.join('\n')}\n`;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
}
