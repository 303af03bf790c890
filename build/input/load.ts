/**
 * Stage 3, load: the checked inputs into the tables every later stage reads: lower-case
 * addresses numbered once, exact HUGEINT amounts, identical duplicate rows merged (except
 * balances, whose repeats the relational check reads), the points as a view (the largest input,
 * read twice at most). Runs after the values are checked (check.ts), before the rules across rows.
 */
import type { Database } from '../database.ts';
import { tokenIndexSql } from '../compute/series-key.ts';
import { accountsOfWalletsSql, joinOwnerSql, SUB_ACCOUNTS_AND_OWNERS_SQL, walletOfRowSql } from '../compute/attribution.ts';
import { TOKEN_KEYS } from '../../schemas/token-keys.ts';
import { distinctValuesTable } from './check.ts';
import type { InputFile } from './read.ts';
import { type Shard, shardFilterSql } from '../../core/shard.ts';

/**
 * With a shard, `balance_rows` holds only the rows of the shard's wallets (a sub-account's rows
 * go with its owner on that chain): every per-wallet rule then runs on an eighth of the rows at 8
 * shards. `balance_written` stays a view of every row as read, for the few facts of the whole
 * export (build/compute/export-facts.ts).
 */
export async function loadInputs(db: Database, inputs: InputFile[], shard: Shard | null): Promise<void> {
  await db.run(
    `CREATE TABLE token_names AS SELECT * FROM (VALUES ${TOKEN_KEYS.map((key, i) => `('${key}', ${i}::TINYINT)`).join(', ')}) t(token, token_index)`,
  );
  const inputOf = (table: string) => inputs.find((candidate) => candidate.contract.table === table)!;
  const select = (table: string, ...extra: string[]) => {
    const input = inputOf(table);
    const columns = [...input.columns.map((column) => `${column.value} AS ${column.contract.name}`), ...extra].join(', ');
    return `SELECT ${columns} FROM ${input.view}`;
  };
  // Addresses become integers numbered in address order: the heavy sorts and windows then move
  // narrow rows, and ordering by id is ordering by address. They come from the distinct values
  // the check grouped (100k rows at 100k wallets, not the 10M balance rows again).
  const normalised = (table: string, name: string) => {
    const input = inputOf(table);
    const column = input.columns.find((candidate) => candidate.contract.name === name)!;
    return `SELECT ${column.value} AS address FROM ${distinctValuesTable(input, column)}`;
  };
  await db.run(`
    CREATE TABLE addresses AS
    SELECT address, (row_number() OVER (ORDER BY address))::INTEGER AS id
    FROM (${normalised('balances', 'address')}
          UNION ${normalised('venue_b_accounts', 'account')}
          UNION ${normalised('venue_b_accounts', 'owner')})`);
  await db.run(`
    CREATE TABLE venue_b_accounts AS
    SELECT DISTINCT v.chain_id, v.account, v.owner, account.id AS account_id, owner.id AS owner_id
    FROM (${select('venue_b_accounts')}) v
    JOIN addresses account ON account.address = v.account
    JOIN addresses owner ON owner.address = v.owner`);
  // Each balance row finds its id by the address as written: lower-casing 10.6M addresses per row
  // cost 1.3 s when half of them were written in mixed case (checksummed), 0.3 s otherwise.
  // Addresses named in venue_b_accounts keep their rows' tx_hash text (build/compute/history.ts
  // orders tied transactions of a wallet's several accounts by it); the others need only its hash.
  const balances = inputOf('balances');
  const balanceAddress = balances.columns.find((column) => column.contract.name === 'address')!;
  await db.run(`
    CREATE TABLE balance_address_ids AS
    SELECT w.written, a.id, a.id IN (${SUB_ACCOUNTS_AND_OWNERS_SQL}) AS keeps_tx_hash
    FROM (SELECT "address" AS written, ${balanceAddress.value} AS address FROM ${distinctValuesTable(balances, balanceAddress)}) w
    JOIN addresses a ON a.address = w.address`);
  for (const input of inputs) {
    for (const column of input.columns) {
      if (column.contract.kind === 'address') await db.run(`DROP TABLE ${distinctValuesTable(input, column)}`);
    }
  }
  await db.run(`
    CREATE TABLE tokens AS
    SELECT DISTINCT *, ${tokenIndexSql('token')}::TINYINT AS token_index FROM (${select('tokens')})`);
  // Exports overlap, so a key may repeat; the rows are kept as they are, because an identical copy
  // changes no snapshot (the history reads the latest balance of an account, and a copy repeats it)
  // and grouping ten million rows by their key only to merge a handful cost seconds. Only the
  // repeated keys are grouped, to report those repeated with different values. Transactions are
  // told apart by a 64-bit hash of tx_hash (see README, Decisions).
  await db.run(`
    CREATE VIEW balance_written AS
    SELECT *, hash(tx_hash) AS tx, ${tokenIndexSql('token')}::TINYINT AS token_index FROM (${select('balances', '"address" AS address_as_written')})`);
  if (shard === null) {
    await db.run(`CREATE TABLE balance_rows AS ${balanceRowsSql('true')}`);
    await db.run('CREATE VIEW every_balance_row AS SELECT * FROM balance_rows');
  } else {
    await db.run(`CREATE TABLE shard_wallets AS SELECT id FROM addresses WHERE ${shardFilterSql(shard, 'address')}`);
    await db.run(`CREATE TABLE balance_rows AS ${balanceRowsOfWalletsSql('SELECT id FROM shard_wallets')}`);
    // The rules across rows read every row, not the shard's: every shard of one export refuses
    // it, or none (a key repeated with another balance in shard 3's rows only was once accepted by
    // shards 1, 2 and 4).
    await db.run(`CREATE VIEW every_balance_row AS ${balanceRowsSql('true')}`);
  }
  await db.run(`
    CREATE TABLE repeated_balance_keys AS
    SELECT chain_id, block_number, log_index, account, token_index FROM every_balance_row
    GROUP BY chain_id, block_number, log_index, account, token_index HAVING count(*) > 1`);
  await db.run(`
    CREATE TABLE repeated_balance_rows AS
    SELECT chain_id, block_number, log_index, account, token_index,
           min(raw) <> max(raw) AS balance_conflict,
           min(tx) <> max(tx) AS tx_hash_conflict,
           min(ts) <> max(ts) AS timestamp_conflict,
           count(*) AS copies
    FROM every_balance_row SEMI JOIN repeated_balance_keys USING (chain_id, block_number, log_index, account, token_index)
    GROUP BY chain_id, block_number, log_index, account, token_index`);
  await db.run(`CREATE TABLE prices AS SELECT DISTINCT * FROM (${select('prices')})`);
  await db.run(`CREATE TABLE multipliers AS ${select('multipliers')}`);
  await db.run(`CREATE TABLE seasons AS ${select('seasons')}`);
  // Points are the largest input: a view, not a copy (the points histories read it twice, for each
  // wallet's facts and for its sums). The address as written is kept beside the lower-cased one,
  // so that they group 300M rows by it and lower-case only the groups (build/compute/points-history.ts).
  await db.run(`CREATE VIEW points AS ${select('points', 'CAST("address" AS VARCHAR) AS address_as_written')}`);
}

/**
 * Balance rows as the later stages read them (`balance_rows`), from the rows as read
 * (`balance_written`, a view of balances.parquet) that `where` keeps: each with its account's id,
 * the hash of its tx_hash, and the tx_hash text where the account is named in venue_b_accounts.
 */
function balanceRowsSql(where: string): string {
  return `
    SELECT b.chain_id, b.block_number, b.log_index, a.id AS account, b.token_index, b.balance AS raw, b.tx,
           CASE WHEN a.keeps_tx_hash THEN b.tx_hash END AS tx_hash, b.timestamp AS ts
    FROM balance_written b
    JOIN balance_address_ids a ON a.written = b.address_as_written
    WHERE ${where}`;
}

/**
 * Each account's largest raw balance up to `$now` on a chain, per token, as a DOUBLE, with the
 * wallet its rows count for there (build/compute/attribution.ts), over every balance row of the
 * export: the bound the night's checks of summed balances and of values put on a wallet's balance.
 * `where` narrows the rows (it may name `b`, the row, and `v`, its owner).
 */
export function largestAccountBalancesSql(where = 'true'): string {
  return `
    SELECT b.chain_id, ${walletOfRowSql('b')} AS wallet, b.token_index, b.account, max(b.raw)::DOUBLE AS largest
    FROM every_balance_row b
    ${joinOwnerSql('b')}
    WHERE b.ts <= $now AND (${where})
    GROUP BY ALL`;
}

/**
 * The balance rows that count for the wallets whose ids `walletIds` selects (the attribution of
 * build/compute/attribution.ts). Read from the export, the rows are first cut by their address as written (the wallets' and their
 * sub-accounts'), so that the costly part of reading a row runs on those rows only; read from
 * `balance_rows` when it holds every row (a build without a shard, and prepare), they are cut by
 * account id. A sub-account of one of them that is a wallet of its own on another chain is then
 * cut by the rule.
 */
export function balanceRowsOfWalletsSql(walletIds: string, from: 'export' | 'balance_rows' = 'export'): string {
  const rows =
    from === 'export'
      ? balanceRowsSql('b.address_as_written IN (SELECT written FROM balance_address_ids WHERE id IN (SELECT id FROM accounts))')
      : 'SELECT * FROM balance_rows WHERE account IN (SELECT id FROM accounts)';
  return `
    WITH wallets AS (${walletIds}),
    accounts AS (${accountsOfWalletsSql('wallets')})
    SELECT b.* FROM (${rows}) b
    ${joinOwnerSql('b')}
    WHERE ${walletOfRowSql('b')} IN (SELECT id FROM wallets)`;
}
