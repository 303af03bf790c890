import os from 'node:os';
import path from 'node:path';
import { DateTime } from 'luxon';
import { UserError } from '../core/errors.ts';
import type { ProgressMode } from '../core/progress.ts';
import { parseShard, type Shard } from '../core/shard.ts';
import { newYorkDayOf } from '../core/new-york-day.ts';
import { dayText } from './compute/days.ts';

export interface BuildConfig {
  inputDir: string;
  /** `--prepared NIGHT/shard-K-of-N`: build one shard from what `prepare` wrote, not from the exports. */
  preparedDir: string | null;
  outDir: string;
  /** The build instant, in Unix seconds (rows with a later timestamp do not count). */
  nowSeconds: number;
  nowIso: string;
  /** `--now` as the user typed it, for messages; null when the build instant is the clock. */
  nowOption: string | null;
  /** The last closed New York day `L`, `YYYY-MM-DD` (every output's days are closed New York days). */
  lastClosedDay: string;
  shard: Shard | null;
  /** Where to write the content-hash manifest of the files written, if anywhere. */
  manifest: string | null;
  /** DuckDB settings; strings as DuckDB expects them. */
  threads: number;
  memoryLimit: string;
  progress: ProgressMode;
  /** Flush the new tree to the disk before it goes live (`--no-sync` skips it). */
  durable: boolean;
  /**
   * Build inputs with neither a balance nor a points row (`--allow-empty`), and a build instant far
   * from the inputs' events (`--allow-distant-now`); the check stage refuses them otherwise
   * (build/input/check.ts, docs/input.md).
   */
  allowEmpty: boolean;
  allowDistantNow: boolean;
  /** `--packed`: write the shard's archives, index and manifest (tree/packed-folder.ts), not a tree of files. */
  packed: boolean;
}

export interface BuildOptions {
  input?: string;
  prepared?: string;
  out?: string;
  now?: string;
  shard?: string;
  manifest?: string;
  threads?: number;
  memoryLimit?: string;
  progress?: ProgressMode;
  sync?: boolean;
  /**
   * Left out, both are refused, as by the CLI without `--allow-empty` and `--allow-distant-now`:
   * a program calling the library gets the product's checks unless it asks otherwise (a test
   * that builds empty tables or a far instant on purpose says so).
   */
  allowEmpty?: boolean;
  allowDistantNow?: boolean;
  packed?: boolean;
}

export function resolveBuildConfig(options: BuildOptions): BuildConfig {
  const now = parseNow(options.now);
  return {
    inputDir: path.resolve(options.input ?? 'data/sample'),
    preparedDir: options.prepared === undefined ? null : path.resolve(options.prepared),
    outDir: path.resolve(options.out ?? 'public'),
    nowSeconds: Math.floor(now.toMillis() / 1000),
    nowIso: now.toUTC().toISO({ suppressMilliseconds: true })!,
    nowOption: options.now ?? null,
    lastClosedDay: lastClosedDayOf(now),
    shard: options.shard === undefined ? null : parseShard(options.shard),
    manifest: options.manifest === undefined ? null : path.resolve(options.manifest),
    threads: checkThreads(options.threads ?? 2),
    memoryLimit: options.memoryLimit ?? '1GB',
    progress: options.progress ?? 'auto',
    durable: options.sync ?? true,
    allowEmpty: options.allowEmpty ?? false,
    allowDistantNow: options.allowDistantNow ?? false,
    packed: options.packed ?? false,
  };
}

/**
 * The most `--threads` a build takes: 64, or the machine's cores when it has more. Each thread is
 * a DuckDB thread and a document thread (a V8 isolate of its own); `--threads 1000000` once started
 * 32,000 threads and ran the machine out of process IDs. Above the cores the threads only share
 * them (cli/build.ts warns), but up to 64 that is a harmless experiment.
 */
export const MAX_THREADS = 64;
const maxThreads = () => Math.max(MAX_THREADS, os.availableParallelism());

function checkThreads(threads: number): number {
  if (!Number.isInteger(threads) || threads < 1 || threads > maxThreads()) {
    throw new UserError(
      `--threads ${threads} is out of range: expected an integer from 1 to ${maxThreads()} (${MAX_THREADS}, or the machine's cores when more; this machine has ${os.availableParallelism()})`,
    );
  }
  return threads;
}

/**
 * How many days after the inputs' latest event a `--now` may be (the check stage refuses later
 * ones unless --allow-distant-now): a nightly build is a day after it, a build re-run by hand a few
 * weeks or months, while each day more adds a day to every wallet's daily history (a century after
 * the sample's last event built a 620 MiB tree). A year and a month, so that a build a year on
 * still passes.
 */
export const DISTANT_NOW_DAYS = 400;

/** The years a build instant may fall in (UTC): Unix time starts in 1970, and DuckDB's and the tree's dates end with 9999. */
const NOW_YEARS = [1970, 9999] as const;

/**
 * `--now` is an ISO 8601 instant. Without an offset it is read as UTC, so the same flag means the
 * same instant on every machine whatever its local zone. Years outside NOW_YEARS are refused here,
 * whatever the inputs: `--now 0000-01-01T00:00:00Z` and `+275760-09-13T00:00:00Z` parse, but no
 * build can use them. How far --now may be from the inputs' events is the check stage's to decide.
 */
function parseNow(text: string | undefined): DateTime {
  if (text === undefined) return DateTime.utc();
  const parsed = DateTime.fromISO(text, { zone: 'utc', setZone: true });
  if (!parsed.isValid) {
    throw new UserError(
      `--now "${text}" is not an ISO 8601 instant (expected e.g. 2025-11-06T15:00:00Z): ${parsed.invalidExplanation ?? parsed.invalidReason}`,
    );
  }
  const year = parsed.toUTC().year;
  if (year < NOW_YEARS[0] || year > NOW_YEARS[1]) {
    throw new UserError(
      `--now "${text}" is in the year ${year} (UTC): a build instant must fall in the years ${NOW_YEARS[0]} to ${NOW_YEARS[1]}`,
    );
  }
  return parsed;
}

/** `L`: the New York calendar date of `now`, minus one day (core/new-york-day.ts). */
export function lastClosedDayOf(now: DateTime): string {
  return dayText(newYorkDayOf(now.toSeconds()) - 1);
}
