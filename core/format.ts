/** How every command writes counts, sizes and durations for people. */

export function formatSeconds(seconds: number): string {
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes}m${String(Math.round(seconds % 60)).padStart(2, '0')}s`;
}

/** `1 wallet`, `2 wallets`: counts in messages and summaries read as English. */
export function countOf(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
}

/** `12,345`: a count for people, grouped by thousands (the reports' tables, the guard's figures). */
export function formatCount(value: number): string {
  return value.toLocaleString('en-US');
}

/** `$1,234.50`: a USD amount to the cent. */
export function formatUsd(value: number): string {
  return `$${value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

/** `5%`, `0.5%`: a fraction (0.05) as a percentage, as the options take it. */
export function formatPercent(fraction: number): string {
  return `${Number((fraction * 100).toPrecision(6))}%`;
}

/** `13.9%`: `part` as a share of `whole` (`-` when there is no whole). */
export function formatShare(part: number, whole: number, digits = 1): string {
  return whole > 0 ? `${((part / whole) * 100).toFixed(digits)}%` : '-';
}

/** `1 percentage point`, `2.5 percentage points`: a threshold on a difference of shares (0.01 for 1 point). */
export function formatPercentagePoints(fraction: number): string {
  const points = Number((fraction * 100).toPrecision(6));
  return `${points} percentage point${points === 1 ? '' : 's'}`;
}

/** `+1.10 points`: a difference of two shares (fractions), in percentage points. */
export function formatPoints(fraction: number, digits = 2): string {
  const text = (fraction * 100).toFixed(digits);
  if (Number(text) === 0) return `${(0).toFixed(digits)} points`;
  return `${fraction > 0 ? '+' : ''}${text} points`;
}

/** `+9.52%`, `-10.0%`: the change from `was` to `is` as a percentage of `was`; `from 0` when `was` is 0. */
export function formatChange(was: number, is: number, digits = 1): string {
  if (was === 0) return is === 0 ? '0%' : 'from 0';
  const change = ((is - was) / Math.abs(was)) * 100;
  const text = change.toFixed(digits);
  // Sums of doubles in another order differ in their last bits: that is no change.
  if (Number(text) === 0) return `${(0).toFixed(digits)}%`;
  return `${change > 0 ? '+' : ''}${text}%`;
}
