/**
 * The night's report (docs/reliability.md#the-report): Markdown a person reads on the workflow's page
 * (`$GITHUB_STEP_SUMMARY`) or in `--report FILE`: counts, every rule of the guard with both figures
 * and its verdict, warnings, each step's seconds, and Mermaid `xychart-beta` charts of the total USD
 * value and the participants over the summary's days. `build` and `publish` both write it here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { EXIT_CANNOT_WRITE, UserError, isWriteRefused, messageOf } from '../core/errors.ts';
import { formatCount, formatUsd } from '../core/format.ts';
import type { NightSummary } from '../schemas/night-summary.ts';
import type { Judgement, RuleRow } from './night-rules.ts';

export interface NightReport {
  /** "wallet-snapshot publish: version 2025-11-28-… is live". */
  title: string;
  /** One line under the title: what happened, in a sentence. */
  outcome: string;
  /** Rows of the counts table after the night's own (nightCounts): what the command did. */
  done: [string, string][];
  judgement: Judgement;
  /** The command's warnings; the rules accepted or explained are added from the judgement. */
  warnings: string[];
  steps: Record<string, number>;
  night: NightSummary;
}

const VERDICT_TEXT: Record<RuleRow['verdict'], string> = {
  ok: '✅ ok',
  refused: '⛔ refused',
  accepted: '⚠️ accepted (--accept)',
  explained: 'ℹ️ explained',
  'not judged': '— not judged',
};

export function nightReportMarkdown(report: NightReport): string {
  const lines: string[] = [`## ${report.title}`, '', report.outcome, ''];
  const counts = [...nightCounts(report.night), ...report.done];
  lines.push('| count | value |', '| --- | --- |', ...counts.map(([name, value]) => `| ${cell(name)} | ${cell(value)} |`), '');
  lines.push('### Rules', '');
  if (report.judgement.reason) lines.push(`${report.judgement.reason}.`, '');
  lines.push(
    '| rule | was | is | change | refuses when (threshold) | verdict |',
    '| --- | --- | --- | --- | --- | --- |',
    ...report.judgement.rows.map(
      (row) =>
        `| \`${row.rule}\` | ${cell(row.was)} | ${cell(row.is)} | ${cell(row.change)} | ${cell(row.threshold)} | ${VERDICT_TEXT[row.verdict]}${row.note && row.verdict !== 'not judged' ? ` (${cell(row.note)})` : ''} |`,
    ),
    '',
  );
  const warnings = [...report.warnings, ...ruleWarnings(report.judgement)];
  lines.push('### Warnings', '', ...(warnings.length > 0 ? warnings.map((warning) => `- ${warning}`) : ['none']), '');
  const steps = Object.entries(report.steps);
  lines.push(
    '### Steps',
    '',
    '| step | seconds |',
    '| --- | ---: |',
    ...steps.map(([step, seconds]) => `| ${cell(step)} | ${seconds.toFixed(1)} |`),
    '',
  );
  lines.push(
    `### The last ${report.night.days.length} closed days`,
    '',
    ...valueChart(report.night),
    '',
    ...participantsChart(report.night),
    '',
  );
  return `${lines.join('\n')}\n`;
}

/**
 * The night at a glance, from its summary: the first rows of every report's counts table, `build`'s
 * and `publish`'s alike. A shard's wallets and values are its own, and say so.
 */
function nightCounts(night: NightSummary): [string, string][] {
  const last = night.days.at(-1) as NightSummary['days'][number];
  const shard = night.shard.count > 1 ? ` (shard ${night.shard.index} of ${night.shard.count})` : '';
  return [
    ['last closed day', night.lastClosedDay],
    ['asOf', night.asOf ?? 'null'],
    [`wallets${shard}`, formatCount(night.wallets)],
    ...night.seasons.map((season): [string, string] => [
      `participants s${season.season}${season.frozen ? ' (frozen)' : ''}`,
      `${formatCount(season.participants)} (asOf ${season.asOf ?? 'null'})`,
    ]),
    [`total USD value on ${last.date}${shard}`, formatUsd(last.totalValueUsd)],
    // The summary's positionsWithoutPrice: the last day's positions, not every day's (schemas/night-summary.ts).
    [`positions on ${last.date}${shard}`, `${formatCount(night.positions)}, ${formatCount(night.positionsWithoutPrice)} without a price`],
  ];
}

/** A warning for each rule that would have refused: accepted with `--accept`, or explained by another. */
function ruleWarnings(judgement: Judgement): string[] {
  return judgement.rows
    .filter((row) => row.verdict === 'accepted' || row.verdict === 'explained')
    .map(
      (row) =>
        `rule \`${row.rule}\` ${row.verdict === 'accepted' ? 'would refuse, accepted with --accept' : row.note}: ${row.was} → ${row.is} (${row.change})`,
    );
}

/** The total USD value of every wallet on each day, in a unit that keeps the axis readable. */
function valueChart(night: NightSummary): string[] {
  const largest = Math.max(...night.days.map((day) => Math.abs(day.totalValueUsd)));
  const [divisor, unit] =
    largest >= 1e9 ? [1e9, 'billion USD'] : largest >= 1e6 ? [1e6, 'million USD'] : largest >= 1e3 ? [1e3, 'thousand USD'] : [1, 'USD'];
  return [
    '```mermaid',
    'xychart-beta',
    `    title "Total USD value of all wallets (${unit})"`,
    `    x-axis [${night.days.map((day) => `"${day.date.slice(5)}"`).join(', ')}]`,
    `    y-axis "${unit}"`,
    `    line [${night.days.map((day) => round(day.totalValueUsd / divisor)).join(', ')}]`,
    '```',
  ];
}

/** One line per season with participants in the window (Mermaid's xychart draws no legend: the title names them in order). */
function participantsChart(night: NightSummary): string[] {
  const seasons = night.seasons.filter((season) => season.participantsByDay.some((count) => count > 0));
  if (seasons.length === 0) return ['No season has participants in these days.'];
  return [
    '```mermaid',
    'xychart-beta',
    `    title "Participants per day: ${seasons.map((season) => `s${season.season}${season.frozen ? ' (frozen)' : ''}`).join(', ')}"`,
    `    x-axis [${night.days.map((day) => `"${day.date.slice(5)}"`).join(', ')}]`,
    '    y-axis "participants"',
    ...seasons.map((season) => `    line [${season.participantsByDay.join(', ')}]`),
    '```',
  ];
}

/**
 * Where a report goes: `--report FILE` (replaced) and `$GITHUB_STEP_SUMMARY` (appended, as GitHub
 * Actions wants). Checked before the work, so that a FILE that cannot be written fails at once.
 */
export function reportTargets(
  file: string | undefined,
  environment: NodeJS.ProcessEnv = process.env,
): { file: string | null; stepSummary: string | null } {
  if (file !== undefined) {
    try {
      if (fs.existsSync(file) && fs.statSync(file).isDirectory()) throw new Error('it is a directory');
      fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
      fs.accessSync(path.dirname(path.resolve(file)), fs.constants.W_OK);
      if (fs.existsSync(file)) fs.accessSync(file, fs.constants.W_OK);
    } catch (error) {
      throw reportFileError(file, error);
    }
  }
  const stepSummary = environment.GITHUB_STEP_SUMMARY;
  return { file: file ?? null, stepSummary: stepSummary ? stepSummary : null };
}

export function deliverReport(markdown: string, targets: { file: string | null; stepSummary: string | null }): void {
  if (targets.file !== null) {
    try {
      fs.writeFileSync(targets.file, markdown);
    } catch (error) {
      throw reportFileError(targets.file, error);
    }
  }
  if (targets.stepSummary !== null) fs.appendFileSync(targets.stepSummary, markdown);
}

function reportFileError(file: string, cause: unknown): UserError {
  return new UserError(
    `--report ${file} cannot be written (${messageOf(cause)})`,
    isWriteRefused(messageOf(cause)) ? EXIT_CANNOT_WRITE : 1,
    { cause },
  );
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
