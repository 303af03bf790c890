/**
 * The shard rule in SQL lives in core/shard.ts with its other forms; this module only passes it on
 * to the stage that still imports it from here (build/stages/split-into-shards.ts).
 */
export { shardNumberSql } from '../../core/shard.ts';
