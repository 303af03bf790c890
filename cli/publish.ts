import { Command, InvalidArgumentError, Option } from 'commander';
import type { PublishCommandOptions } from '../publish/index.ts';
import { abortOnSignals } from '../core/signals.ts';
import { formatPercent as percent, formatPercentagePoints } from '../core/format.ts';
import { seconds } from './options.ts';
import { summaryJsonWriter } from '../core/summary-json.ts';
import type { PublishSummaryJson } from '../schemas/publish-summary.ts';
import { DEFAULT_THRESHOLDS, parsePercent, parseRuleNames, RULES } from '../tree/night-rules.ts';

export function publishCommand(): Command {
  return (
    new Command('publish')
      .description(
        "upload a built tree to S3, R2 or MinIO under a new version, packed into a few archives and an index, then switch readers to it (atomic, resumable); a shard's tree is staged, and --commit makes all shards live at once",
      )
      .option('--dir <dir>', 'the built tree to publish')
      .requiredOption('--to <s3://bucket/prefix>', 'where: a bucket and an optional prefix, e.g. s3://snapshots/prod')
      .option(
        '--endpoint <url>',
        'an S3-compatible endpoint (R2: https://<account id>.r2.cloudflarestorage.com, MinIO, a local server); path-style requests',
      )
      .option(
        '--keep <n>',
        'afterwards, remove the versions beyond the N newest (at least 2: the live one and the one --rollback returns to)',
        wholeNumber,
      )
      .option('--rollback', 'switch back to the version live before the current one (no --dir)')
      .option(
        '--commit [id]',
        'make a sharded version live once all its shards are staged (no --dir); the id as the stages printed it, else the newest staged version',
      )
      .option('--version <id>', 'with --commit: the staged version to make live (the same as --commit ID)')
      .option('--concurrency <n>', 'connections to the store at most', wholeNumber, 32)
      .option(
        '--max-attempts <n>',
        'attempts per request before giving up (throttling, 5xx and network errors are retried with backoff)',
        wholeNumber,
        8,
      )
      .option(
        '--stall-timeout <seconds>',
        'a request whose connection sends and receives nothing this long is abandoned and retried',
        seconds,
        30,
      )
      .addOption(new Option('--progress <mode>', 'progress output on stderr').choices(['auto', 'tty', 'lines', 'quiet']).default('auto'))
      // The night's guard (docs/reliability.md#guard): thresholds, and the rules a known change accepts once.
      .option(
        '--accept <rules>',
        `publish even though these rules refuse, once (a known change): ${RULES.join(', ')}, separated by commas`,
        optionParser(parseRuleNames),
      )
      .option(
        '--max-wallet-drop <percent>',
        `refuse when the number of wallets falls by more than this (rule wallets; default ${percent(DEFAULT_THRESHOLDS.walletDrop)})`,
        optionParser(parsePercent),
      )
      .option(
        '--max-participant-drop <percent>',
        `refuse when a season's participants fall by more than this (rule participants; default ${percent(DEFAULT_THRESHOLDS.participantDrop)})`,
        optionParser(parsePercent),
      )
      .option(
        '--max-restatement <percent>',
        `refuse when a past day's total USD value differs from the live night's by more than this (rule restated; default ${percent(DEFAULT_THRESHOLDS.restatement)})`,
        optionParser(parsePercent),
      )
      .option(
        '--max-day-change <percent>',
        `refuse when the last day's total USD value differs from the day before by more than this (rule day-change; default ${percent(DEFAULT_THRESHOLDS.dayChange)})`,
        optionParser(parsePercent),
      )
      .option(
        '--max-unpriced <percent>',
        "refuse when positions without a price rise to this share of the last day's positions or more from a live night below it; " +
          `a last day with no price at all in the export counts every position (rule unpriced; default ${percent(DEFAULT_THRESHOLDS.unpriced)})`,
        optionParser(parsePercent),
      )
      .option(
        '--max-unpriced-rise <points>',
        'where the live night is at --max-unpriced or more already, refuse when that share rises by more than this many percentage points ' +
          `(rule unpriced; default ${formatPercentagePoints(DEFAULT_THRESHOLDS.unpricedRise)})`,
        optionParser(parsePercent),
      )
      .option('--report <file>', "also write the night's Markdown report to FILE (it goes to $GITHUB_STEP_SUMMARY when that is set)")
      .option(
        '--summary-json <file>',
        'also write the outcome as JSON: the version, live or staged or refused, the counts (its schema: PublishSummaryJsonSchema of wallet-snapshot/summaries; docs/cli.md)',
      )
      .action(async (options: PublishCommandOptions & { summaryJson?: string }) => {
        const writeSummaryJson = options.summaryJson
          ? summaryJsonWriter<PublishSummaryJson>(options.summaryJson, 'the publish itself is done')
          : undefined;
        // Loaded here: the S3 client is only for this command, not for every start of the CLI.
        const { runPublish } = await import('../publish/index.ts');
        const interrupt = abortOnSignals();
        try {
          process.stdout.write(await runPublish(options, interrupt.signal, writeSummaryJson));
        } finally {
          interrupt.dispose();
        }
      })
  );
}

function optionParser<T>(parse: (text: string) => T): (text: string) => T {
  return (text) => {
    try {
      return parse(text);
    } catch (error) {
      throw new InvalidArgumentError((error as Error).message);
    }
  };
}

function wholeNumber(text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new InvalidArgumentError('expected a whole number of at least 1');
  return value;
}
