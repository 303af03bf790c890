/**
 * Where a build records what it wrote, inside the tree: one pair of files per build (shard K of N;
 * unsharded 1 of 1), so that the union of N shard trees holds all N records and each shard's
 * shared files stay byte-identical to the unsharded tree's.
 */
export const MANIFEST_DIR = '_snapshot/manifests';

export interface ShardName {
  index: number;
  count: number;
}

export function manifestListFile(shard: ShardName): string {
  return `${MANIFEST_DIR}/${shard.index}-of-${shard.count}.sha256`;
}

export function manifestSummaryFile(shard: ShardName): string {
  return `${MANIFEST_DIR}/${shard.index}-of-${shard.count}.json`;
}

export const MANIFEST_NAME = /^([1-9][0-9]*)-of-([1-9][0-9]*)\.(sha256|json)$/;
