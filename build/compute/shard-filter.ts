import type { Shard } from '../../core/shard.ts';

/** The wallets of one shard in SQL: the same assignment as `shardOf` (core/shard.ts). */
export function shardFilterSql(shard: Shard | null, column: string): string {
  if (shard === null) return 'true';
  return `(('0x' || left(md5(${column}), 8))::BIGINT % ${shard.count}) = ${shard.index - 1}`;
}
