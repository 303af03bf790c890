/**
 * Shards of one build: `--shard K/N` splits the wallets into N stable parts, so that N jobs share
 * one night's work. The rule, a wallet's shard, lives here only, in the three forms its users
 * need: in SQL for the build (which cuts its rows and folders by it), in Node for `verify` and
 * `publish`, and through Web Crypto for the Worker, which finds a wallet's files in its shard's
 * pack (tree/bucket.ts). test/rules.test.ts holds the SQL and Node forms to the same answers; the
 * Worker's runs in workerd only (the slow suite publish-shards serves a sharded version with it).
 *
 * The rule: the first 8 hex digits of md5(lower-case address) as an integer, mod N, plus 1. md5
 * rather than DuckDB's internal hash so the assignment is stable across DuckDB versions and
 * reproducible in any language. This module imports no `node:` module, so that the Worker can
 * use it.
 */
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

/** The digest the rule reads, by the name Node, Web Crypto and DuckDB all know it by. */
const DIGEST = 'md5';

/** The rule's arithmetic over the address's digest: its first four bytes (8 hex digits) as an unsigned integer, mod N, plus 1. */
function shardOfDigest(digest: Uint8Array, count: number): number {
  return (new DataView(digest.buffer, digest.byteOffset, 4).getUint32(0) % count) + 1;
}

/**
 * A wallet's shard (1 to `count`) from its lower-case address, in Node. node:crypto is taken at
 * the call, not imported, so that the Worker, which calls `shardOfWithWebCrypto`, can import
 * this module.
 */
export function shardOf(address: string, count: number): number {
  const { createHash } = process.getBuiltinModule('node:crypto');
  return shardOfDigest(createHash(DIGEST).update(address).digest(), count);
}

/** `shardOf` through Web Crypto, for the Worker: workerd's digest knows MD5, Node's does not. */
export async function shardOfWithWebCrypto(address: string, count: number): Promise<number> {
  return shardOfDigest(new Uint8Array(await crypto.subtle.digest(DIGEST.toUpperCase(), new TextEncoder().encode(address))), count);
}

/** `shardOf` in SQL: the shard (1 to `count`) of the lower-case address in `column`. */
export function shardNumberSql(count: number, column: string): string {
  return `((('0x' || left(${DIGEST}(${column}), 8))::BIGINT % ${count}) + 1)::INTEGER`;
}

/** The wallets of one shard in SQL, over the lower-case address in `column` (every wallet without a shard). */
export function shardFilterSql(shard: Shard | null, column: string): string {
  if (shard === null) return 'true';
  return `(${shardNumberSql(shard.count, column)} = ${shard.index})`;
}
