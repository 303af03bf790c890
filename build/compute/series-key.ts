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
 * Bounds: token indexes are below 8 (seven keys), chain indexes below 2^29 (one per distinct chain
 * ID of tokens.parquet, checked), wallet ids below 2^31 (INTEGER, which DuckDB's cast enforces),
 * so the key is a non-negative BIGINT.
 */
import { TOKEN_KEYS } from '../../schemas/token-keys.ts';

/** SQL giving a token key its position in the output order (schemas/token-keys.ts). */
export function tokenIndexSql(column: string): string {
  return `CASE ${column} ${TOKEN_KEYS.map((key, i) => `WHEN '${key}' THEN ${i}`).join(' ')} END`;
}

/** Chain indexes take 29 bits (history.ts refuses more chains). */
export const MAX_CHAINS = 2 ** 29;

/** A (wallet, chain) pair as wallet id << 29 | chain index: a series key without its token. */
export function walletChainKeySql(wallet: string, chainIndex: string): string {
  return `((CAST(${wallet} AS BIGINT) << 29) | CAST(${chainIndex} AS BIGINT))`;
}

export function seriesKeySql(wallet: string, chainIndex: string, tokenIndex: string): string {
  return `((${walletChainKeySql(wallet, chainIndex)} << 3) | CAST(${tokenIndex} AS BIGINT))`;
}

/** The (wallet, chain) key of a series key, comparable with walletChainKeySql. */
export const walletChainOfSeriesSql = (series: string) => `(${series} >> 3)`;

export const walletOfSeriesSql = (series: string) => `CAST(${series} >> 32 AS INTEGER)`;

export const chainIndexOfSeriesSql = (series: string) => `CAST((${series} >> 3) & ${MAX_CHAINS - 1} AS INTEGER)`;

export const tokenIndexOfSeriesSql = (series: string) => `CAST(${series} & 7 AS INTEGER)`;
