/** Option parsers that several commands share. */
import { InvalidArgumentError } from 'commander';

export function positiveInteger(text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new InvalidArgumentError('expected a positive integer');
  return value;
}

/** A duration in seconds, fractions allowed (a store's stall timeout). */
export function seconds(text: string): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0)
    throw new InvalidArgumentError('expected a number of seconds greater than 0 (e.g. 30, or 0.5)');
  return value;
}

/**
 * A size DuckDB reads as its memory limit. Checked here because DuckDB only says "Failed to set
 * config", and takes a negative size as no limit at all.
 */
export function memorySize(text: string): string {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)\s*$/i.exec(text);
  if (!match || Number(match[1]) <= 0)
    throw new InvalidArgumentError('expected a positive size with a unit: B, KB, MB, GB, TB, KiB, MiB, GiB or TiB (e.g. 1GB)');
  return text.trim();
}
