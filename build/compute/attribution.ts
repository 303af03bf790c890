/**
 * Attribution (docs/api.md, both portfolio endpoints): on each chain, a wallet's accounts are the
 * wallet itself and every account that venue_b_accounts names it the owner of there; every balance
 * row of a sub-account counts for its owner on that chain. Every query that attributes a balance
 * row to its wallet, or finds a wallet's accounts, takes the rule from here: the history
 * (history.ts), the rows a shard loads and the rows that keep their tx_hash (build/input/load.ts),
 * the night's bounds on summed balances and values (history.ts, value-reach.ts), the example
 * wallet (export-facts.ts), and the cut of the rows and accounts into prepared shard folders
 * (build/prepared-folder.ts). test/rules.test.ts fails on a query of venue_b_accounts elsewhere.
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
 * The accounts (address ids, `id`) whose rows may count for the wallets of the relation `wallets`
 * (a column `id`): the wallets and their sub-accounts on any chain, each with the wallet's columns
 * `carried` (a shard's wallets and their sub-accounts, each with the shard). A sub-account of one
 * of them that is a wallet of its own on another chain is among them: `walletOfRowSql` then
 * decides each row.
 */
export function accountsOfWalletsSql(wallets: string, carried: readonly string[] = []): string {
  const columns = carried.map((column) => `, w.${column}`).join('');
  return `SELECT w.id${columns} FROM ${wallets} w
          UNION SELECT v.account_id${columns} FROM venue_b_accounts v JOIN ${wallets} w ON w.id = v.owner_id`;
}

/** The sub-accounts (rows of venue_b_accounts) of the wallets of `wallets` (a column `id`), each with the wallet's columns `carried`. */
export function subAccountsOfWalletsSql(wallets: string, carried: readonly string[]): string {
  return `SELECT v.*${carried.map((column) => `, w.${column}`).join('')} FROM venue_b_accounts v JOIN ${wallets} w ON w.id = v.owner_id`;
}

/**
 * Each wallet with sub-accounts on a chain, whose balance there is a sum over several accounts:
 * `chain_id`, `wallet` (an address id), and how many sub-accounts it has there, `sub_accounts`.
 */
export const WALLETS_WITH_SUB_ACCOUNTS_SQL = `
  SELECT chain_id, owner_id AS wallet, count(DISTINCT account_id) AS sub_accounts FROM venue_b_accounts GROUP BY chain_id, owner_id`;

/** Whether the wallet `wallet` (an address id) has sub-accounts on any chain. */
export function hasSubAccountsSql(wallet: string): string {
  return `EXISTS (SELECT 1 FROM venue_b_accounts v WHERE v.owner_id = ${wallet})`;
}

/**
 * Whether balance row `row`, joined to its owner by `joinOwnerSql(row, owner)`, counts for a wallet
 * of several accounts on its chain: a sub-account's row, or a row of a wallet with sub-accounts there.
 */
export function rowOfSeveralAccountsSql(row: string, owner = 'v'): string {
  return `(${owner}.owner_id IS NOT NULL OR EXISTS (SELECT 1 FROM venue_b_accounts o WHERE o.chain_id = ${row}.chain_id AND o.owner_id = ${row}.account))`;
}

/** The ids of every address a wallet of several accounts is made of: each sub-account and each owner. */
export const SUB_ACCOUNTS_AND_OWNERS_SQL = 'SELECT account_id AS id FROM venue_b_accounts UNION ALL SELECT owner_id FROM venue_b_accounts';
