/**
 * The night's guard (docs/reliability.md#guard) at `publish` and `publish --commit`: before the pointer moves, the
 * new night's summary is compared with the live version's (tree/night-rules.ts); a refusal leaves
 * the pointer as it is, exits 1 and says which rule, both figures, the threshold and the flag that
 * accepts it. Every run, refused or not, ends with the night's report (tree/night-report.ts).
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { UserError } from '../core/errors.ts';
import { countOf } from '../core/format.ts';
import { NIGHT_SUMMARY_PATH, shardNightSummaryPath } from '../tree/bucket.ts';
import { addShardSummaries } from '../tree/night-summary.ts';
import { judgeNight, count, usd, type Judgement, type RuleName, type RuleRow, type Thresholds } from '../tree/night-rules.ts';
import { deliverReport, nightReportMarkdown } from '../tree/night-report.ts';
import type { NightSummary } from '../schemas/night-summary.ts';
import { describe, type Location } from './location.ts';
import { readNightRecord, writeNightRecord } from './night-record.ts';

export interface GuardOptions {
  thresholds: Thresholds;
  accept: ReadonlySet<RuleName>;
  report: { file: string | null; stepSummary: string | null };
}

export class NightGuard {
  night: NightSummary | null = null;
  judgement: Judgement | null = null;
  /** What the report says when no rule was judged (a shard's stage, a version live already). */
  unjudged = 'Not judged';
  /** Seconds of the guard's own steps, beside the command's. */
  private readonly steps: Record<string, number> = {};

  constructor(
    private readonly options: GuardOptions,
    /** The command's steps so far (its progress), for a report written at a refusal. */
    private readonly commandSteps: () => Record<string, number>,
  ) {}

  /**
   * Compares `night` with the live version's summary; throws the refusal (after writing the
   * report) when a rule refuses. `what` names the move in the message: "publish" or "--commit".
   */
  async judge(client: S3Client, location: Location, context: { what: string; version: string; live: string | null }, abortSignal?: AbortSignal): Promise<void> {
    const started = performance.now();
    const night = this.night!;
    const live = context.live === null ? null : await readNightRecord(client, location, context.live, NIGHT_SUMMARY_PATH, abortSignal);
    const reason =
      context.live === null
        ? 'First publish: no version is live, so there is nothing to compare'
        : `The live version ${context.live} has no night summary (it was published by an older wallet-snapshot), so there is nothing to compare`;
    this.judgement = judgeNight(night, live, this.options.thresholds, this.options.accept, reason);
    this.steps['judge the night (guard)'] = (performance.now() - started) / 1000;
    if (this.judgement.refusals.length === 0) return;
    const message = refusalMessage(this.judgement, context, location);
    this.report(`${context.what} refused: version ${context.version} did not go live`, message.split('\n')[0]!, []);
    throw new UserError(message, 1);
  }

  /** Keeps the night's summary beside the version (the next night's guard reads it): before the pointer. */
  async record(client: S3Client, location: Location, version: string, treePath = NIGHT_SUMMARY_PATH, abortSignal?: AbortSignal): Promise<void> {
    await writeNightRecord(client, location, version, treePath, this.night!, abortSignal);
  }

  /** Writes the report where it was asked for; `said` is what the command printed (its closing summary). */
  report(title: string, outcome: string, said: string[]): void {
    const night = this.night!;
    const rows = this.judgement ?? judgeNight(night, null, this.options.thresholds, this.options.accept, this.unjudged);
    const last = night.days.at(-1)!;
    const counts: [string, string][] = [
      ['last closed day', night.lastClosedDay],
      ['asOf', night.asOf ?? 'null'],
      [night.shard.count > 1 ? `wallets (shard ${night.shard.index} of ${night.shard.count})` : 'wallets', count(night.wallets)],
      ...night.seasons.map((season): [string, string] => [`participants s${season.season}${season.frozen ? ' (frozen)' : ''}`, `${count(season.participants)} (asOf ${season.asOf ?? 'null'})`]),
      [`total USD value on ${last.date}`, usd(last.totalValueUsd)],
      [`positions on ${last.date}`, `${count(night.positions)}, ${count(night.positionsWithoutPrice)} without a price`],
      ...said.slice(1).filter((line) => line.trim() !== '').map((line): [string, string] => ['publish', line]),
    ];
    const warnings = rows.rows.filter((row) => row.verdict === 'accepted' || row.verdict === 'explained').map((row) => `rule \`${row.rule}\` ${row.verdict === 'accepted' ? 'would refuse, accepted with --accept' : row.note}: ${row.was} → ${row.is} (${row.change})`);
    const steps = { ...this.commandSteps(), ...this.steps };
    deliverReport(nightReportMarkdown({ title, outcome, counts, judgement: rows, warnings, steps, night }), this.options.report);
  }
}

/**
 * `--commit`: the N staged shards' summaries added up are the night (a shard staged without one is
 * refused); judged against the live night and kept beside the version, unless it is live already.
 */
export async function guardCommit(
  guard: NightGuard,
  client: S3Client,
  location: Location,
  context: { version: string; count: number; live: string | null; alreadyLive: boolean },
  abortSignal?: AbortSignal,
): Promise<void> {
  const summaries: NightSummary[] = [];
  for (let index = 1; index <= context.count; index++) {
    const summary = await readNightRecord(client, location, context.version, shardNightSummaryPath({ index, count: context.count }), abortSignal);
    if (!summary) {
      throw new UserError(`--commit: version ${context.version} at ${describe(location)} cannot go live: shard ${index} of ${context.count} was staged without its night summary (by an older wallet-snapshot); stage it again; the live version ${context.live ? `(${context.live}) ` : ''}is untouched`);
    }
    summaries.push(summary);
  }
  try {
    guard.night = addShardSummaries(summaries);
  } catch (error) {
    throw new UserError(`--commit: version ${context.version} at ${describe(location)} cannot go live: ${(error as Error).message}; the live version ${context.live ? `(${context.live}) ` : ''}is untouched`, 1, { cause: error });
  }
  if (context.alreadyLive) {
    guard.unjudged = `Version ${context.version} is live already: nothing moved, nothing judged`;
    return;
  }
  await guard.judge(client, location, { what: '--commit', version: context.version, live: context.live }, abortSignal);
  await guard.record(client, location, context.version, NIGHT_SUMMARY_PATH, abortSignal);
}

function refusalMessage(judgement: Judgement, context: { what: string; version: string; live: string | null }, location: Location): string {
  const rules = judgement.refusals.map((row) => row.rule);
  const explained = judgement.rows.filter((row) => row.verdict === 'explained');
  return [
    `${context.what} refused: version ${context.version} does not go live at ${describe(location)}; the live version ${context.live} is untouched. ${countOf(rules.length, 'rule')} refused the night:`,
    ...judgement.refusals.map((row) => `  - rule ${row.rule}: ${figures(row)} (${row.change}); it refuses when ${row.threshold}; if this change is known, publish it with --accept ${row.rule}`),
    ...(explained.length > 0 ? [`  (moved with it, and explained by it: ${explained.map((row) => `${row.rule}, ${row.was} → ${row.is}`).join('; ')})`] : []),
    `to publish it anyway, once: the same command with --accept ${rules.join(',')}`,
  ].join('\n');
}

function figures(row: RuleRow): string {
  return row.rule === 'day-change' ? `the day before ${row.was}, the last day ${row.is}` : `live ${row.was}, this night ${row.is}`;
}
