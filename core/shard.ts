/**
 * Shards of one build: `--shard K/N` splits the wallets into N stable parts, so that N jobs share
 * one night's work. The assignment is the same in SQL (build/compute/shard-filter.ts), in `verify` and in
 * `publish`.
 */
import crypto from 'node:crypto';
import { UserError } from './errors.ts';

export interface Shard {
  /** 1-based index of this shard. */
  index: number;
  count: number;
}

export function parseShard(text: string): Shard {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = match ? Number(match[1]) : NaN;
  const count = match ? Number(match[2]) : NaN;
  if (!match || count < 1 || index < 1 || index > count) {
    throw new UserError(`--shard "${text}" is not K/N with 1 <= K <= N (e.g. 2/4)`);
  }
  return { index, count };
}

/**
 * A wallet's shard: the first 8 hex digits of md5(lower-case address) as an integer, mod N, plus 1.
 * md5 rather than DuckDB's internal hash so the assignment is stable across DuckDB versions and
 * reproducible in any language.
 */
export function shardOf(address: string, count: number): number {
  return (Number.parseInt(crypto.createHash('md5').update(address).digest('hex').slice(0, 8), 16) % count) + 1;
}
