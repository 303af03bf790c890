/**
 * The build's night report (docs/reliability.md#the-report, tree/night-report.ts): what the build wrote, its night summary
 * and its stages' seconds. A build has no live version to compare with, so the rules show this
 * night's figures unjudged; `publish` judges them.
 */
import type { BuildSummary } from './index.ts';
import { countOf, formatBytes, formatSeconds } from '../core/format.ts';
import { DEFAULT_THRESHOLDS, judgeNight, usd } from '../tree/night-rules.ts';
import { deliverReport, nightReportMarkdown } from '../tree/night-report.ts';

export function writeBuildReport(summary: BuildSummary, outDir: string, targets: { file: string | null; stepSummary: string | null }): void {
  const night = summary.night;
  const last = night.days.at(-1)!;
  const shard = night.shard.count > 1 ? ` (shard ${night.shard.index} of ${night.shard.count})` : '';
  const markdown = nightReportMarkdown({
    title: `wallet-snapshot build: ${outDir}${shard}`,
    outcome: `Built ${countOf(summary.wallets, 'wallet')}, ${countOf(summary.files, 'file')} (${formatBytes(summary.bytes)}) in ${formatSeconds(summary.seconds)}; last closed day ${summary.lastClosedDay}.`,
    counts: [
      ['last closed day', summary.lastClosedDay],
      ['asOf', summary.dailyAsOf ?? 'null'],
      [`wallets${shard}`, String(summary.wallets)],
      ...summary.seasons.map((season): [string, string] => [`participants s${season.season}`, `${season.participants} (asOf ${season.asOf ?? 'null'})`]),
      [`total USD value on ${last.date}${shard}`, usd(last.totalValueUsd)],
      [`positions on ${last.date}`, `${night.positions}, ${night.positionsWithoutPrice} without a price`],
      ['daily positions without a price (every day)', String(summary.positionsWithoutPrice)],
      ['balance rows', String(summary.balanceRows)],
      ['files', `${summary.files} (${formatBytes(summary.bytes)})`],
      ['peak RSS', formatBytes(summary.peakRssBytes)],
    ],
    judgement: judgeNight(night, null, DEFAULT_THRESHOLDS, new Set(), 'A build has no live version to compare with: `publish` judges every rule against the live night (the figures below are this night\'s)'),
    warnings: summary.warnings,
    steps: summary.stageSeconds,
    night,
  });
  deliverReport(markdown, targets);
}
