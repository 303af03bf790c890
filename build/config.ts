import path from 'node:path';
import { DateTime } from 'luxon';
import { UserError } from '../core/errors.ts';
import type { ProgressMode } from '../core/progress.ts';
import { parseShard, type Shard } from '../core/shard.ts';

export const NEW_YORK = 'America/New_York';

export interface BuildConfig {
  inputDir: string;
  outDir: string;
  /** The build instant, in Unix seconds (rows with a later timestamp do not count). */
  nowSeconds: number;
  nowIso: string;
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
}

export interface BuildOptions {
  input?: string;
  out?: string;
  now?: string;
  shard?: string;
  manifest?: string;
  threads?: number;
  memoryLimit?: string;
  progress?: ProgressMode;
  sync?: boolean;
}

export function resolveBuildConfig(options: BuildOptions): BuildConfig {
  const now = parseNow(options.now);
  return {
    inputDir: path.resolve(options.input ?? 'data/sample'),
    outDir: path.resolve(options.out ?? 'public'),
    nowSeconds: Math.floor(now.toMillis() / 1000),
    nowIso: now.toUTC().toISO({ suppressMilliseconds: true })!,
    lastClosedDay: lastClosedDayOf(now),
    shard: options.shard === undefined ? null : parseShard(options.shard),
    manifest: options.manifest === undefined ? null : path.resolve(options.manifest),
    threads: options.threads ?? 2,
    memoryLimit: options.memoryLimit ?? '1GB',
    progress: options.progress ?? 'auto',
    durable: options.sync ?? true,
  };
}

/**
 * `--now` is an ISO 8601 instant. Without an offset it is read as UTC, so the same flag means the
 * same instant on every machine whatever its local zone.
 */
export function parseNow(text: string | undefined): DateTime {
  if (text === undefined) return DateTime.utc();
  const parsed = DateTime.fromISO(text, { zone: 'utc', setZone: true });
  if (!parsed.isValid) {
    throw new UserError(
      `--now "${text}" is not an ISO 8601 instant (expected e.g. 2025-11-06T15:00:00Z): ${parsed.invalidExplanation ?? parsed.invalidReason}`,
    );
  }
  return parsed;
}

/** `L`: the New York calendar date of `now`, minus one day (daylight saving included). */
export function lastClosedDayOf(now: DateTime): string {
  return now.setZone(NEW_YORK).startOf('day').minus({ days: 1 }).toISODate()!;
}
