import type { Shard } from './config.ts';

/**
 * A wallet's shard: the first 8 hex digits of md5(lower-case address) as an integer, mod N, plus 1.
 * md5 rather than DuckDB's internal hash so the assignment is stable across DuckDB versions and
 * reproducible in any language.
 */
export function shardFilterSql(shard: Shard | null, column: string): string {
  if (shard === null) return 'true';
  return `(('0x' || left(md5(${column}), 8))::BIGINT % ${shard.count}) = ${shard.index - 1}`;
}
