/**
 * A series, the snapshots of one (wallet, chain, token), as one BIGINT:
 *
 *   wallet id << 32 | chain index << 3 | token index
 *
 * The snapshots' grouping, window and final sort then compare one 8-byte key where they compared
 * three columns, which is faster (figures in bench/LOG.md). Ordering by the key is
 * ordering by wallet (ids are numbered in address order), then chain (indexes in numeric chain ID
 * order), then token (in the output order of schemas/token-keys.ts), which is the order the
 * documents are written in.
 *
 * Bounds: token indexes take 3 bits (at most 8 keys: a ninth in schemas/token-keys.ts fails here
 * when the module loads, rather than overlapping the chain's bits), chain indexes below 2^29 (one
 * per distinct chain ID of tokens.parquet, checked), wallet ids below 2^31 (INTEGER, which
 * DuckDB's cast enforces), so the key is a non-negative BIGINT.
 */
import { TOKEN_KEYS } from '../../schemas/token-keys.ts';

/** The bits of a series key that hold the token's index. */
export const TOKEN_BITS = 3;

/** Refuses more token keys than the key's token bits hold. */
export function checkTokenKeysFit(count: number): void {
  if (count > 2 ** TOKEN_BITS) {
    throw new Error(
      `${count} token keys in schemas/token-keys.ts, but a series key holds ${2 ** TOKEN_BITS} (TOKEN_BITS ${TOKEN_BITS} in build/compute/series-key.ts): widen the key first`,
    );
  }
}
checkTokenKeysFit(TOKEN_KEYS.length);

/** SQL giving a token key its position in the output order (schemas/token-keys.ts). */
export function tokenIndexSql(column: string): string {
  return `CASE ${column} ${TOKEN_KEYS.map((key, i) => `WHEN '${key}' THEN ${i}`).join(' ')} END`;
}

/** Chain indexes take the 29 bits between the wallet's 32 and the token's (history.ts refuses more chains). */
const CHAIN_BITS = 32 - TOKEN_BITS;
export const MAX_CHAINS = 2 ** CHAIN_BITS;

/** A (wallet, chain) pair as wallet id << 29 | chain index: a series key without its token. */
export function walletChainKeySql(wallet: string, chainIndex: string): string {
  return `((CAST(${wallet} AS BIGINT) << ${CHAIN_BITS}) | CAST(${chainIndex} AS BIGINT))`;
}

export function seriesKeySql(wallet: string, chainIndex: string, tokenIndex: string): string {
  return `((${walletChainKeySql(wallet, chainIndex)} << ${TOKEN_BITS}) | CAST(${tokenIndex} AS BIGINT))`;
}

/** The (wallet, chain) key of a series key, comparable with walletChainKeySql. */
export const walletChainOfSeriesSql = (series: string) => `(${series} >> ${TOKEN_BITS})`;

export const walletOfSeriesSql = (series: string) => `CAST(${series} >> 32 AS INTEGER)`;

export const chainIndexOfSeriesSql = (series: string) => `CAST((${series} >> ${TOKEN_BITS}) & ${MAX_CHAINS - 1} AS INTEGER)`;

export const tokenIndexOfSeriesSql = (series: string) => `CAST(${series} & ${2 ** TOKEN_BITS - 1} AS INTEGER)`;
