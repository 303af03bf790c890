/**
 * The night's guard at `publish` and `publish --commit` (docs/reliability.md#guard):
 * before the pointer moves, the new night's summary is judged against the live version's by the
 * pure `judgeNight` (tree/night-rules.ts). Its value, a `Judgement`, is all the rest is made from:
 * the refusal (its message and exit code: the pointer is left as it is), and the night's report
 * (tree/night-report.ts) that every run writes, refused or not.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { countOf } from '../core/format.ts';
import { UserError } from '../core/errors.ts';
import { NIGHT_SUMMARY_PATH, shardNightSummaryPath } from '../tree/bucket.ts';
import { addShardSummaries } from '../tree/night-summary.ts';
import { judgeNight, notJudged, type Judgement, type RuleName, type RuleRow, type Thresholds } from '../tree/night-rules.ts';
import { nightReportMarkdown } from '../tree/night-report.ts';
import type { NightSummary } from '../schemas/night-summary.ts';
import { describe, type Location } from './location.ts';
import { readNightRecord, writeNightRecord } from './night-record.ts';

/** The guard's settings for one command: its thresholds, and the rules its `--accept` accepts once. */
export interface GuardSettings {
  thresholds: Thresholds;
  accept: ReadonlySet<RuleName>;
}

/** A night to judge, with the settings to judge it by. */
export interface NightToGuard extends GuardSettings {
  night: NightSummary;
}

/** What the guard decided for one move of the pointer: the night, its judgement, the seconds judging took (null: not judged). */
export interface GuardOutcome {
  night: NightSummary;
  judgement: Judgement;
  seconds: number | null;
}

/** The move the guard judges: "publish" or "--commit" of `version`, over the version live at `live` (null: none). */
export interface GuardContext {
  what: string;
  version: string;
  live: string | null;
}

/** A night the guard refused: the error the command exits with (1), carrying the outcome its report is made from. */
export class NightRefused extends UserError {
  /** The report's title and the line under it. */
  readonly title: string;
  readonly headline: string;

  constructor(
    readonly outcome: GuardOutcome,
    /** The version refused and the live one, left live. */
    readonly context: GuardContext,
    lines: readonly [string, ...string[]],
  ) {
    super(lines.join('\n'), 1);
    this.title = `${context.what} refused: version ${context.version} did not go live`;
    this.headline = lines[0];
  }
}

/**
 * Reads the live night kept beside `context.live` (one request) and judges `guarded.night` against
 * it; throws `NightRefused` when a rule refuses.
 */
export async function guardNight(
  client: S3Client,
  location: Location,
  guarded: NightToGuard,
  context: GuardContext,
  abortSignal?: AbortSignal,
): Promise<GuardOutcome> {
  const started = performance.now();
  const live = context.live === null ? null : await readNightRecord(client, location, context.live, NIGHT_SUMMARY_PATH, abortSignal);
  const judgement =
    live === null
      ? notJudged(guarded.night, guarded.thresholds, nothingToCompare(context.live))
      : judgeNight(live, guarded.night, guarded.thresholds, guarded.accept);
  const outcome: GuardOutcome = { night: guarded.night, judgement, seconds: (performance.now() - started) / 1000 };
  const refusal = refusalLines(judgement, context, location);
  if (refusal !== null) throw new NightRefused(outcome, context, refusal);
  return outcome;
}

/** A night shown in the report without a judgement; `reason` says why (a stage, a rollback, a version live already). */
export function unjudged(guarded: NightToGuard, reason: string): GuardOutcome {
  return { night: guarded.night, judgement: notJudged(guarded.night, guarded.thresholds, reason), seconds: null };
}

function nothingToCompare(live: string | null): string {
  return live === null
    ? 'First publish: no version is live, so there is nothing to compare'
    : `The live version ${live} has no night summary (it was published by an older wallet-snapshot), so there is nothing to compare`;
}

/**
 * `--commit`: the N staged shards' summaries added up are the night (a shard staged without one is
 * refused), judged against the live night and kept beside the version, unless it is live already.
 */
export async function guardCommit(
  client: S3Client,
  location: Location,
  settings: GuardSettings,
  context: { version: string; count: number; live: string | null; alreadyLive: boolean },
  abortSignal?: AbortSignal,
): Promise<GuardOutcome> {
  const untouched = `the live version ${context.live ? `(${context.live}) ` : ''}is untouched`;
  const summaries: NightSummary[] = [];
  for (let index = 1; index <= context.count; index++) {
    const summary = await readNightRecord(
      client,
      location,
      context.version,
      shardNightSummaryPath({ index, count: context.count }),
      abortSignal,
    );
    if (!summary) {
      throw new UserError(
        `--commit: version ${context.version} at ${describe(location)} cannot go live: shard ${index} of ${context.count} was staged without its night summary (by an older wallet-snapshot); stage it again; ${untouched}`,
      );
    }
    summaries.push(summary);
  }
  let night: NightSummary;
  try {
    night = addShardSummaries(summaries);
  } catch (error) {
    throw new UserError(
      `--commit: version ${context.version} at ${describe(location)} cannot go live: ${(error as Error).message}; ${untouched}`,
      1,
      { cause: error },
    );
  }
  if (context.alreadyLive)
    return unjudged({ ...settings, night }, `Version ${context.version} is live already: nothing moved, nothing judged`);
  const outcome = await guardNight(
    client,
    location,
    { ...settings, night },
    { what: '--commit', version: context.version, live: context.live },
    abortSignal,
  );
  // Kept beside the version for the next night's guard, before the pointer names it.
  await writeNightRecord(client, location, context.version, NIGHT_SUMMARY_PATH, night, abortSignal);
  return outcome;
}

/** The refusal's lines (its message), or null when no rule refuses: the exit code follows from the same value. */
export function refusalLines(judgement: Judgement, context: GuardContext, location: Location): [string, ...string[]] | null {
  if (judgement.refusals.length === 0) return null;
  const rules = judgement.refusals.map((row) => row.rule);
  const explained = judgement.rows.filter((row) => row.verdict === 'explained');
  const head = `${context.what} refused: version ${context.version} does not go live at ${describe(location)}; the live version ${context.live} is untouched. ${countOf(rules.length, 'rule')} refused the night:`;
  return [
    head,
    ...judgement.refusals.map(
      (row) =>
        `  - rule ${row.rule}: ${figures(row)} (${row.change}); it refuses when ${row.threshold}; if this change is known, publish it with --accept ${row.rule}`,
    ),
    ...(explained.length > 0
      ? [`  (moved with it, and explained by it: ${explained.map((row) => `${row.rule}, ${row.was} → ${row.is}`).join('; ')})`]
      : []),
    `to publish it anyway, once: the same command with --accept ${rules.join(',')}`,
  ];
}

function figures(row: RuleRow): string {
  return row.rule === 'day-change' ? `the day before ${row.was}, the last day ${row.is}` : `live ${row.was}, this night ${row.is}`;
}

/**
 * The report of one `publish` run: `lines` is what the command said (its closing summary, or the
 * refusal), the first line under the title, the rest as the counts table's `publish` rows.
 */
export function publishReportMarkdown(
  title: string,
  lines: readonly string[],
  outcome: GuardOutcome,
  commandSteps: Record<string, number>,
): string {
  const steps = outcome.seconds === null ? commandSteps : { ...commandSteps, 'judge the night (guard)': outcome.seconds };
  return nightReportMarkdown({
    title,
    outcome: lines[0] ?? '',
    done: lines
      .slice(1)
      .filter((line) => line.trim() !== '')
      .map((line): [string, string] => ['publish', line]),
    judgement: outcome.judgement,
    warnings: [],
    steps,
    night: outcome.night,
  });
}
