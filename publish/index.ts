/**
 * The `publish` command as one call: a validated configuration in, the closing summary out.
 */
import { UserError } from '../core/errors.ts';
import { Progress } from '../core/progress.ts';
import type { ProgressMode } from '../core/progress.ts';
import { keepVersions, MIN_KEEP } from './keep-versions.ts';
import { commitVersion } from './commit.ts';
import { checkEndpoint, parseLocation } from './location.ts';
import { VERSION_ID_PATTERN } from '../tree/bucket.ts';
import { readCheckedTree } from './checked-tree.ts';
import { publishTree } from './publish-tree.ts';
import { stageShard } from './stage-shard.ts';
import { rollback } from './rollback.ts';
import { createStorageClient } from './storage.ts';
import { NightRefused, publishReportMarkdown, unjudged, type GuardOutcome, type GuardSettings } from './guard.ts';
import { readNightRecord, readTreeNightSummary } from './night-record.ts';
import { NIGHT_SUMMARY_PATH } from '../tree/bucket.ts';
import { DEFAULT_THRESHOLDS, type RuleName, type Thresholds } from '../tree/night-rules.ts';
import { deliverReport, reportTargets } from '../tree/night-report.ts';
import { commitSummaryLines, formatKeepSummary, printed, publishSummaryLines, rollbackSummaryLines, stageSummaryLines } from './summary.ts';
import { commitJson, guardJson, keepJson, publishJson, refusedJson, rollbackJson, stageJson } from './summary.ts';
import { describe } from './location.ts';
import type { PublishSummaryJson } from '../schemas/publish-summary.ts';

export interface PublishCommandOptions {
  dir?: string;
  to: string;
  endpoint?: string;
  keep?: number;
  rollback?: boolean;
  /** `--commit` (true) or `--commit ID`. */
  commit?: boolean | string;
  /** With `--commit`: the staged version to make live. */
  version?: string;
  concurrency: number;
  maxAttempts: number;
  /** Seconds a connection may stay silent before its request is abandoned and retried (storage.ts). */
  stallTimeout?: number;
  progress: ProgressMode;
  /** The night's guard (docs/reliability.md#guard): rules accepted once, thresholds as fractions, the report's file. */
  accept?: RuleName[];
  maxWalletDrop?: number;
  maxParticipantDrop?: number;
  maxRestatement?: number;
  maxDayChange?: number;
  maxUnpriced?: number;
  /** A fraction: 0.01 for 1 percentage point. */
  maxUnpricedRise?: number;
  report?: string;
}

/**
 * `onSummary`: given the closing summary as its JSON document (`--summary-json`) when the command
 * ends with a decision: a version live, a shard staged, or a night the guard refused.
 */
export async function runPublish(
  options: PublishCommandOptions,
  abortSignal?: AbortSignal,
  onSummary?: (summary: PublishSummaryJson) => void,
): Promise<string> {
  const started = performance.now();
  const location = parseLocation(options.to);
  const mode = options.rollback ? '--rollback' : options.commit !== undefined ? '--commit' : null;
  if (options.rollback && options.commit !== undefined)
    throw new UserError('--rollback and --commit are two different moves of the pointer: give one');
  if (mode && options.dir !== undefined) {
    throw new UserError(`${mode} moves the pointer of what is stored already and takes no --dir`);
  }
  if (!mode && options.dir === undefined) {
    throw new UserError('--dir is required: the built tree to publish (or give --commit or --rollback)');
  }
  if (options.version !== undefined && options.commit === undefined)
    throw new UserError(`--version ${options.version} names the staged version to commit: give it with --commit`);
  const requested = typeof options.commit === 'string' ? options.commit : options.version;
  if (typeof options.commit === 'string' && options.version !== undefined && options.commit !== options.version) {
    throw new UserError(`--commit ${options.commit} and --version ${options.version} name two versions: give one`);
  }
  if (requested !== undefined && !VERSION_ID_PATTERN.test(requested)) {
    throw new UserError(
      `--commit: "${requested}" is not a version id (e.g. 2025-11-20-c94e01dfee2b395d, as publish printed it when staging)`,
    );
  }
  if (options.keep !== undefined && options.keep < MIN_KEEP) {
    throw new UserError(
      `--keep ${options.keep}: expected a whole number of at least ${MIN_KEEP} (the live version and the one --rollback returns to)`,
    );
  }
  if (options.endpoint !== undefined) checkEndpoint(options.endpoint, location.bucket);
  const progress = new Progress(options.progress);
  const settings: GuardSettings = { thresholds: guardThresholds(options), accept: new Set(options.accept ?? []) };
  const targets = reportTargets(options.report);
  const report = (title: string, lines: readonly string[], outcome: GuardOutcome) =>
    deliverReport(publishReportMarkdown(title, lines, outcome, progress.stageSeconds), targets);
  const client = await createStorageClient({
    endpoint: options.endpoint,
    maxAttempts: options.maxAttempts,
    concurrency: options.concurrency,
    ...(options.stallTimeout === undefined ? {} : { stallTimeoutMs: options.stallTimeout * 1000 }),
  });
  /** The JSON's common part; `judged`: the guard's outcome when it judged the night (null otherwise). */
  const base = (judged: GuardOutcome | null = null) => ({
    target: describe(location),
    guard: guardJson(judged && judged.seconds !== null ? judged.judgement : null),
    keep: null,
  });
  let closeTree = () => {};
  try {
    let text: string;
    let json: PublishSummaryJson;
    if (options.rollback) {
      const rolled = await rollback(client, location, abortSignal);
      const lines = rollbackSummaryLines(rolled, location);
      text = printed(lines);
      json = rollbackJson(rolled, base(), (performance.now() - started) / 1000);
      // The night readers see again, in the report too (a version published before the guard has no summary).
      const night = await readNightRecord(client, location, rolled.to, NIGHT_SUMMARY_PATH, abortSignal);
      if (night) {
        const reason = `A rollback: readers see version ${rolled.to} again, as published; nothing judged`;
        const outcome = unjudged({ ...settings, night }, reason);
        report(`wallet-snapshot publish --rollback: version ${rolled.to} is live again`, lines, outcome);
      }
    } else if (options.commit !== undefined) {
      const committed = await commitVersion(client, location, requested, abortSignal, settings);
      const lines = commitSummaryLines(committed, location);
      text = printed(lines);
      if (committed.guard) report(`wallet-snapshot publish --commit: version ${committed.version} is live`, lines, committed.guard);
      json = commitJson(committed, base(committed.guard ?? null));
    } else {
      const publishing = { dir: options.dir!, location, client, progress, abortSignal };
      const tree = await readCheckedTree(publishing);
      // A packed folder's archives were opened to read its members; closed however this ends.
      closeTree = () => tree.packed?.close();
      const night = await readTreeNightSummary(tree, options.dir!);
      if (tree.records.shard.count > 1) {
        if (options.keep !== undefined) {
          throw new UserError(
            `--keep ${options.keep}: a shard's stage never removes versions (the other shards may be staging); give --keep to the --commit that follows`,
          );
        }
        const stage = await stageShard(publishing, tree, undefined, night);
        const lines = stageSummaryLines(stage, location, options.endpoint);
        const reason = "Not judged at a shard's stage: the rules are judged by publish --commit, on the sum of all shards";
        const outcome = unjudged({ ...settings, night }, reason);
        report(`wallet-snapshot publish: shard ${tree.records.shard.index} of ${tree.records.shard.count} staged`, lines, outcome);
        onSummary?.(stageJson(stage, base()));
        return printed(lines);
      }
      const published = await publishTree(publishing, tree, { ...settings, night });
      const lines = publishSummaryLines(published, location);
      text = printed(lines);
      json = publishJson(published, base(published.guard ?? null));
      if (published.guard) report(`wallet-snapshot publish: version ${published.version} is live`, lines, published.guard);
    }
    if (options.keep !== undefined) {
      const kept = await keepVersions(client, location, options.keep, abortSignal);
      text += formatKeepSummary(kept, location);
      json = { ...json, keep: keepJson(kept) };
    }
    onSummary?.(json);
    return text;
  } catch (error) {
    // A refusal's report holds the rules' figures: the reason to read it.
    if (error instanceof NightRefused) report(error.title, [error.headline], error.outcome);
    // The guard's refusal is a decision too: the JSON says which rules refused and which version stays out.
    if (error instanceof NightRefused)
      onSummary?.(
        refusedJson(
          options.commit !== undefined ? 'commit' : 'publish',
          error.context,
          base(error.outcome),
          (performance.now() - started) / 1000,
        ),
      );
    throw error;
  } finally {
    closeTree();
    client.destroy();
  }
}

/** Each threshold as given, else its default. */
function guardThresholds(options: PublishCommandOptions): Thresholds {
  return {
    walletDrop: options.maxWalletDrop ?? DEFAULT_THRESHOLDS.walletDrop,
    participantDrop: options.maxParticipantDrop ?? DEFAULT_THRESHOLDS.participantDrop,
    restatement: options.maxRestatement ?? DEFAULT_THRESHOLDS.restatement,
    dayChange: options.maxDayChange ?? DEFAULT_THRESHOLDS.dayChange,
    unpriced: options.maxUnpriced ?? DEFAULT_THRESHOLDS.unpriced,
    unpricedRise: options.maxUnpricedRise ?? DEFAULT_THRESHOLDS.unpricedRise,
  };
}
