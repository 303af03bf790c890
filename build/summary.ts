/**
 * The build's closing summary for people (stdout) and, with `--summary-json FILE`, for a CI
 * history.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BuildSummary } from './index.ts';
import type { PrepareSummary } from './prepare.ts';
import { describeNightKind } from '../schemas/night-kind.ts';
import { EXIT_CANNOT_WRITE, UserError, isWriteRefused, messageOf } from '../core/errors.ts';
import { countOf, formatBytes, formatSeconds } from '../core/format.ts';

/** The lines a build and a prepare both print: the night's asOf and leaderboards, each stage's seconds. */
function nightLines(summary: Pick<BuildSummary, 'dailyAsOf' | 'seasons' | 'stageSeconds'>): string[] {
  const seasons = summary.seasons
    .map((season) => `s${season.season} ${season.asOf ?? 'null'} (${countOf(season.participants, 'participant')})`)
    .join(', ');
  const stages = Object.entries(summary.stageSeconds)
    .map(([stage, seconds]) => `${stage} ${formatSeconds(seconds)}`)
    .join(', ');
  return [`asOf: daily ${summary.dailyAsOf ?? 'null'}; leaderboards ${seasons || 'none'}`, `stages: ${stages}`];
}

export function formatBuildSummary(summary: BuildSummary, outDir: string): string {
  const lines = [
    `built ${outDir}: ${countOf(summary.wallets, 'wallet')}, ${countOf(summary.files, 'file')}, ${formatBytes(summary.bytes)} in ${formatSeconds(summary.seconds)}, peak RSS ${formatBytes(summary.peakRssBytes)}`,
    `now: ${summary.now} (last closed day ${summary.lastClosedDay})`,
    ...nightLines(summary),
    `live: ${outDir} -> ${summary.build}${summary.previousBuild ? ` (the tree it replaced, ${summary.previousBuild}, is kept beside it for a rollback)` : ''}`,
    ...(summary.warnings.length ? summary.warnings.map((warning) => `warning: ${warning}`) : ['warnings: none']),
  ];
  return `${lines.join('\n')}\n`;
}

export function formatPrepareSummary(summary: PrepareSummary): string {
  const lines = [
    `prepared ${summary.night}: ${countOf(summary.shards, 'shard')}, ${formatBytes(summary.bytes)} in ${formatSeconds(summary.seconds)}, peak RSS ${formatBytes(summary.peakRssBytes)}`,
    `now: ${summary.now} (last closed day ${summary.lastClosedDay})`,
    `night: ${describeNightKind(summary.nightKind)}`,
    ...nightLines(summary),
    ...summary.folders.map((folder) => `shard: ${folder} (build it with: wallet-snapshot build --prepared ${folder})`),
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * `--summary-json FILE` is checked before the work, so that a path that cannot be written fails
 * at once (exit 1) and not, as an internal error, after the tree or the night is written. `done`
 * says, in the message of a late failure, what was written all the same.
 */
export function summaryJsonWriter(file: string, done: string): (summary: BuildSummary | PrepareSummary) => void {
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
      const message = `--summary-json ${file} cannot be written (${messageOf(error)}); ${done}`;
      throw new UserError(message, isWriteRefused(messageOf(error)) ? EXIT_CANNOT_WRITE : 1);
    }
  };
}
