/**
 * Attribution (docs/api.md, both portfolio endpoints): on each chain, a wallet's accounts are the
 * wallet itself and every account that venue_b_accounts names it the owner of there; every balance
 * row of a sub-account counts for its owner on that chain. Every query that attributes a balance
 * row to its wallet, or finds a wallet's accounts, takes the rule from here: the history
 * (history.ts), the rows a shard loads (build/input/load.ts), the night's bounds on summed balances
 * and values, and the cut of the rows into prepared shard folders (build/prepared-folder.ts).
 */

/**
 * Each (chain, account) with its owner on that chain. One owner is taken, so that a sub-account
 * named twice (which the relational check refuses with its own message) does not repeat its rows.
 */
const OWNER_ON_CHAIN_SQL = 'SELECT chain_id, account_id, min(owner_id) AS owner_id FROM venue_b_accounts GROUP BY chain_id, account_id';

/**
 * The join that finds, as `owner`, the owner of balance row `row`'s account on the row's chain
 * (its `owner_id` is null when the account is no sub-account there). `row` names a row with
 * `chain_id` and `account` (an address id), as `balance_rows` has them.
 */
export function joinOwnerSql(row: string, owner = 'v'): string {
  return `LEFT JOIN (${OWNER_ON_CHAIN_SQL}) ${owner} ON ${owner}.chain_id = ${row}.chain_id AND ${owner}.account_id = ${row}.account`;
}

/** The wallet (an address id) balance row `row` counts for, with `joinOwnerSql(row, owner)` joined. */
export function walletOfRowSql(row: string, owner = 'v'): string {
  return `coalesce(${owner}.owner_id, ${row}.account)`;
}

/**
 * The accounts (address ids) whose rows may count for the wallets of the relation `wallets` (a
 * column `id`): the wallets and their sub-accounts on any chain. A sub-account of one of them that
 * is a wallet of its own on another chain is among them: `walletOfRowSql` then decides each row.
 */
export function accountsOfWalletsSql(wallets: string): string {
  return `SELECT id FROM ${wallets} UNION SELECT account_id FROM venue_b_accounts WHERE owner_id IN (SELECT id FROM ${wallets})`;
}
