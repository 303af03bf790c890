/**
 * The build's closing summary for people (stdout) and, with `--summary-json FILE`, for a CI
 * history.
 */
import type { BuildSummary } from './index.ts';
import type { PrepareSummary } from './prepare.ts';
import { describeNightKind } from '../schemas/night-kind.ts';
import { BuildSummaryJsonSchema, type BuildSummaryJson } from '../schemas/build-summary.ts';
import { PrepareSummaryJsonSchema, type PrepareSummaryJson } from '../schemas/prepare-summary.ts';
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

/** The `--summary-json` document of a build (schemas/build-summary.ts). */
export function buildSummaryJson(summary: BuildSummary, outDir: string): BuildSummaryJson {
  return BuildSummaryJsonSchema.parse({
    command: 'build',
    out: outDir,
    build: summary.build,
    previousBuild: summary.previousBuild,
    now: summary.now,
    lastClosedDay: summary.lastClosedDay,
    wallets: summary.wallets,
    files: summary.files,
    bytes: summary.bytes,
    seconds: summary.seconds,
    dailyAsOf: summary.dailyAsOf,
    seasons: summary.seasons,
    balanceRows: summary.balanceRows,
    dailyPositionsWithoutPrice: summary.dailyPositionsWithoutPrice,
    warnings: summary.warnings,
    stageSeconds: summary.stageSeconds,
    peakRssBytes: summary.peakRssBytes,
    night: summary.night,
  });
}

/** The `--summary-json` document of a prepare (schemas/prepare-summary.ts). */
export function prepareSummaryJson(summary: PrepareSummary): PrepareSummaryJson {
  return PrepareSummaryJsonSchema.parse({
    command: 'prepare',
    out: summary.night,
    folders: summary.folders,
    shards: summary.shards,
    night: summary.nightKind,
    now: summary.now,
    lastClosedDay: summary.lastClosedDay,
    bytes: summary.bytes,
    seconds: summary.seconds,
    dailyAsOf: summary.dailyAsOf,
    seasons: summary.seasons,
    stageSeconds: summary.stageSeconds,
    peakRssBytes: summary.peakRssBytes,
  });
}
