/** How every command writes counts, sizes and durations for people. */

export function formatSeconds(seconds: number): string {
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes}m${String(Math.round(seconds % 60)).padStart(2, '0')}s`;
}

/** The seconds `formatSeconds` wrote (`12.3s`, `1m08s`); NaN for any other text. */
export function parseSeconds(text: string): number {
  const match = /^(?:(\d+)m(\d{2})s|(\d+(?:\.\d+)?)s)$/.exec(text);
  if (!match) return Number.NaN;
  return match[3] !== undefined ? Number(match[3]) : Number(match[1]) * 60 + Number(match[2]);
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
