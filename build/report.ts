/**
 * The build's night report (docs/reliability.md#the-report, tree/night-report.ts): what the build
 * wrote, its night summary and its stages' seconds. A build has no live version to compare with, so
 * the rules show this night's figures unjudged; `publish` judges them.
 */
import type { BuildSummary } from './index.ts';
import { countOf, formatBytes, formatCount, formatSeconds } from '../core/format.ts';
import { DEFAULT_THRESHOLDS, notJudged } from '../tree/night-rules.ts';
import { deliverReport, nightReportMarkdown } from '../tree/night-report.ts';
import { describeNightKind } from '../schemas/night-kind.ts';

const NOT_JUDGED =
  "A build has no live version to compare with: `publish` judges every rule against the live night (the figures below are this night's)";

export function buildReportMarkdown(summary: BuildSummary, outDir: string): string {
  const night = summary.night;
  const shard = night.shard.count > 1 ? ` (shard ${night.shard.index} of ${night.shard.count})` : '';
  const built = `${countOf(summary.wallets, 'wallet')}, ${countOf(summary.files, 'file')} (${formatBytes(summary.bytes)})`;
  return nightReportMarkdown({
    title: `wallet-snapshot build: ${outDir}${shard}`,
    outcome: `Built ${built} in ${formatSeconds(summary.seconds)}; last closed day ${summary.lastClosedDay}.`,
    done: [
      // Not the night summary's last-day count above: every day of every wallet's daily document.
      ['positions without a price in the daily documents (every day)', formatCount(summary.dailyPositionsWithoutPrice)],
      ['balance rows', formatCount(summary.balanceRows)],
      ['files', `${formatCount(summary.files)} (${formatBytes(summary.bytes)})`],
      ['peak RSS', formatBytes(summary.peakRssBytes)],
      // A shard of a prepared night: which kind of night prepared it.
      ...(summary.nightKind ? ([['prepared night', describeNightKind(summary.nightKind)]] as [string, string][]) : []),
    ],
    judgement: notJudged(night, DEFAULT_THRESHOLDS, NOT_JUDGED),
    warnings: summary.warnings,
    steps: summary.stageSeconds,
    night,
  });
}

export function writeBuildReport(
  summary: BuildSummary,
  outDir: string,
  targets: { file: string | null; stepSummary: string | null },
): void {
  deliverReport(buildReportMarkdown(summary, outDir), targets);
}
