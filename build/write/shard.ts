import crypto from 'node:crypto';
import type { Shard } from '../config.ts';

/**
 * A wallet's shard: the first 8 hex digits of md5(lower-case address) as an integer, mod N, plus 1.
 * md5 rather than DuckDB's internal hash so the assignment is stable across DuckDB versions and
 * reproducible in any language.
 */
export function shardFilterSql(shard: Shard | null, column: string): string {
  if (shard === null) return 'true';
  return `(('0x' || left(md5(${column}), 8))::BIGINT % ${shard.count}) = ${shard.index - 1}`;
}

/** The same assignment in JavaScript (for `verify`): the 1-based shard of a lower-case address among `count`. */
export function shardOf(address: string, count: number): number {
  return (Number.parseInt(crypto.createHash('md5').update(address).digest('hex').slice(0, 8), 16) % count) + 1;
}
