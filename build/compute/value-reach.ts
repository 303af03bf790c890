/**
 * Rule: an export is refused when a wallet's values could reach beyond the largest JSON number. The
 * documents' `valueUsd` is a balance times its price, and `totalValueUsd` their sum, as doubles: a
 * price near 1e300 makes them infinite, which JSON cannot hold. Decided here, over every wallet of
 * the export, so that the whole build, `prepare` and every `build --shard` refuse the same exports
 * in the same words (the document threads would only find the wallets of their own shard).
 *
 * A wallet's balance of a token on a chain is at most the sum, over its accounts there, of each
 * account's largest raw balance (balances are never negative), and a price at most the token's
 * largest price; a wallet whose sum of those bounds, over its chains and tokens, stays below
 * 2^1023 (half the largest double) never reaches infinity, whatever the rounding. Real exports
 * stay far below it: the first check bounds every balance by 10^38 and needs no balance row.
 */
import type { Database } from '../database.ts';
import { UserError } from '../../core/errors.ts';
import { largestAccountBalancesSql } from '../input/load.ts';
import { WALLETS_WITH_SUB_ACCOUNTS_SQL } from './attribution.ts';

const LIMIT = 2 ** 1023;

/** Each (chain, token)'s largest price, and its decimals. */
const PRICED_TOKENS_SQL = `
  SELECT t.chain_id, t.token, t.token_index, t.decimals, p.largest_price
  FROM tokens t JOIN (SELECT chain_id, token, max(usd_price) AS largest_price FROM prices GROUP BY chain_id, token) p
    ON p.chain_id = t.chain_id AND p.token = t.token
  WHERE p.largest_price > 0`;

/**
 * Refuses the export when a wallet's values can reach beyond the largest JSON number. Returns false,
 * without deciding, when the bound without balances does not settle it and `withBalances` is false
 * (an incremental night, which holds the rows of its new days only: it is then made whole).
 */
export async function checkValueReach(db: Database, nowSeconds: number, withBalances = true): Promise<boolean> {
  // Any wallet: at most 1 + its sub-accounts on a chain, each below 10^38 raw.
  const [bound] = await db.rows<{ reach: number | null }>(`
    WITH accounts AS (
      SELECT chain_id, 1 + coalesce(max(sub_accounts), 0) AS most FROM (${WALLETS_WITH_SUB_ACCOUNTS_SQL}) GROUP BY chain_id
    )
    SELECT sum(pow(10::DOUBLE, 38 - t.decimals) * t.largest_price * coalesce(a.most, 1)) AS reach
    FROM (${PRICED_TOKENS_SQL}) t LEFT JOIN accounts a ON a.chain_id = t.chain_id`);
  if ((bound?.reach ?? 0) < LIMIT) return true;
  if (!withBalances) return false;
  const [found] = await db.rows<{
    wallets: number;
    address: string;
    chain_id: number;
    token: string;
    decimals: number;
    largest_price: number;
    balance: number;
  }>(
    `
    WITH largest AS (${largestAccountBalancesSql()}),
    reach AS (
      -- Summed as doubles: a sum beyond a HUGEINT has a refusal of its own (history.ts).
      SELECT l.wallet, l.chain_id, t.token, t.decimals, t.largest_price, sum(l.largest) AS balance,
             sum(l.largest) * pow(10::DOUBLE, -t.decimals) * t.largest_price AS value
      FROM largest l JOIN (${PRICED_TOKENS_SQL}) t ON t.chain_id = l.chain_id AND t.token_index = l.token_index
      GROUP BY l.wallet, l.chain_id, t.token, t.largest_price, t.decimals
    ),
    wallets AS (SELECT wallet FROM reach GROUP BY wallet HAVING sum(value) >= ${LIMIT})
    SELECT (SELECT count(*) FROM wallets)::INTEGER AS wallets, a.address, r.chain_id, r.token, r.decimals, r.largest_price, r.balance
    FROM reach r SEMI JOIN wallets w ON w.wallet = r.wallet JOIN addresses a ON a.id = r.wallet
    ORDER BY a.address, r.value DESC, r.chain_id, r.token LIMIT 1`,
    { now: nowSeconds },
  );
  if (!found?.wallets) return true;
  throw new UserError(
    `prices.parquet: column "usd_price": ${found.wallets === 1 ? '1 wallet' : `${found.wallets} wallets`} whose balances times their prices can reach beyond the largest JSON number, e.g. ${found.address}: up to ${found.balance} raw ${found.token} on chain ${found.chain_id} (${found.decimals} decimals) at up to ${found.largest_price} USD`,
  );
}
