import type { Shard } from '../../core/shard.ts';

/** The wallets of one shard in SQL: the same assignment as `shardOf` (core/shard.ts). */
export function shardFilterSql(shard: Shard | null, column: string): string {
  if (shard === null) return 'true';
  return `(${shardNumberSql(shard.count, column)} = ${shard.index})`;
}

/** The shard (1 to `count`) of the lower-case address in `column`: `shardOf` (core/shard.ts) in SQL. */
export function shardNumberSql(count: number, column: string): string {
  return `((('0x' || left(md5(${column}), 8))::BIGINT % ${count}) + 1)::INTEGER`;
}
