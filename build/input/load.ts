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
import {
  dayOfInstantSql,
  firstSecondOfDay,
  fromDaySql,
  inputDaysOfUnitsSql,
  rowHashSql,
  unitAggregatesSql,
  unitSql,
} from '../compute/input-days.ts';

/**
 * Which rows the load reads. `whole`: every row of every file (a build; prepare's full night, which
 * with `digest` also hashes every balance row into `input_days` as it loads it: one read of the
 * file for the digests and the load). `incremental`: an incremental night's rows of the days it
 * computes, the rest being the previous night's (docs/incremental-nights.md): the balances and
 * points of day `from` on (the points of every day when the night sums them again: `pointsFrom`
 * null), the small files whole.
 */
export type LoadScope =
  | { kind: 'whole'; digest: boolean }
  | { kind: 'incremental'; from: number; pointsFrom: number | null; previous: PreviousRows };

/** What an incremental night's load takes from the previous night (build/night-state.ts, build/prepared-folder.ts). */
interface PreviousRows {
  /** A relation of its accounts: (address, key, first_day): each address's lasting key and the day of its first balance row. */
  accounts: string;
  /** Its balance rows, every day's, `account` a lasting key. */
  balanceRows: StoredBalanceRows;
  /** The first lasting key no address of it holds. */
  nextAccountKey: number;
}

/**
 * Balance rows as a prepared folder stores them: the relation of their files, and the SQL of their
 * columns shaped as `balance_rows`' (over the alias given), cast after the rows are cut.
 */
export interface StoredBalanceRows {
  files: string;
  columns: (alias: string) => string;
}

/**
 * Where every balance row of the export is found, as the night's few queries over every wallet
 * read them (the summed-balance bound, the probe for the export's facts): the export itself (a
 * shard's build, which loads its own rows only), `balance_rows` (a build without a shard,
 * prepare's full night), or an incremental night's: the previous night's rows of the days before
 * its first second `before`, and `balance_rows`. The previous night's rows are cut to the
 * accounts a query asks for before they are numbered, which reads little more than their accounts.
 */
export type NightBalanceRows = 'export' | 'balance_rows' | { previous: StoredBalanceRows; before: number };

/** The whole build's load: every row. */
const WHOLE: LoadScope = { kind: 'whole', digest: false };

/**
 * With a shard, `balance_rows` holds only the rows of the shard's wallets (a sub-account's rows
 * go with its owner on that chain): every per-wallet rule then runs on an eighth of the rows at 8
 * shards. `balance_written` stays a view of every row as read, for the few facts of the whole
 * export (build/compute/export-facts.ts). `every_balance_row` is every row of the export as the
 * later stages read them; `checked_balance_rows` those the rules across rows check (an incremental
 * night: the rows it loaded, and the earlier rows that repeat one of their keys).
 *
 * Every address has an id (its place in address order, which the heavy steps sort by) and a
 * lasting key, which a prepared folder's balance rows carry so that a later night can keep them
 * (a full night's keys are its ids); `account_first_days` holds the day of each address's first
 * balance row, which the next night needs to know which addresses it keeps (prepare only).
 */
export async function loadInputs(db: Database, inputs: InputFile[], shard: Shard | null, scope: LoadScope = WHOLE): Promise<void> {
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
  const named = `${normalised('balances', 'address')}
          UNION ${normalised('venue_b_accounts', 'account')}
          UNION ${normalised('venue_b_accounts', 'owner')}`;
  const balances = inputOf('balances');
  if (scope.kind === 'whole') {
    await db.run(`
      CREATE TABLE addresses AS
      SELECT address, (row_number() OVER (ORDER BY address))::INTEGER AS id, (row_number() OVER (ORDER BY address))::INTEGER AS key
      FROM (${named})`);
  } else {
    // Tonight's addresses are a full night's: those of the rows it loaded and of the sub-accounts,
    // and the previous night's whose first row is on a day before `from` (a row of an unchanged
    // day, so still in the export). Each keeps its key; a new one gets one above every key given.
    await db.run(`CREATE TABLE previous_accounts AS SELECT address, key, first_day FROM (${scope.previous.accounts})`);
    await db.run(`
      CREATE TABLE addresses AS
      SELECT a.address, (row_number() OVER (ORDER BY a.address))::INTEGER AS id,
             coalesce(p.key, ${scope.previous.nextAccountKey} + row_number() OVER (PARTITION BY p.key IS NULL ORDER BY a.address) - 1)::INTEGER AS key
      FROM (${named} UNION SELECT address FROM previous_accounts WHERE first_day < ${scope.from}) a
      LEFT JOIN previous_accounts p ON p.address = a.address`);
  }
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
  const balanceAddress = balances.columns.find((column) => column.contract.name === 'address')!;
  await db.run(`
    CREATE TABLE balance_address_ids AS
    SELECT w.written, a.id, a.id IN (${SUB_ACCOUNTS_AND_OWNERS_SQL}) AS keeps_tx_hash
    FROM (SELECT "address" AS written, ${balanceAddress.value} AS address FROM ${distinctValuesTable(balances, balanceAddress)}) w
    JOIN addresses a ON a.address = w.address`);
  // The day of each address's first balance row, which the next night reads (prepare only: the
  // check grouped each address's first timestamp with its distinct values), and the previous
  // night's first days of the addresses it keeps, which no loaded row can be earlier than.
  const distinctBalances = distinctValuesTable(balances, balanceAddress);
  if (scope.kind === 'whole' && !scope.digest) {
    await db.run('CREATE TABLE account_first_days (id INTEGER, first_day INTEGER)');
  } else {
    const kept =
      scope.kind === 'incremental'
        ? `UNION ALL SELECT a.id, p.first_day FROM previous_accounts p JOIN addresses a ON a.address = p.address WHERE p.first_day < ${scope.from}`
        : '';
    await db.run(`
      CREATE TABLE account_first_days AS
      SELECT id, min(first_day)::INTEGER AS first_day FROM (
        SELECT b.id, ${dayOfInstantSql('d.first_at')} AS first_day FROM ${distinctBalances} d JOIN balance_address_ids b ON b.written = d."address"
        ${kept})
      GROUP BY id`);
  }
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
  // told apart by a 64-bit hash of tx_hash (see README, Decisions). `row_hash` is the row's digest
  // as written (build/compute/input-days.ts), read only by a full night's load.
  await db.run(`
    CREATE VIEW balance_written AS
    SELECT *, hash(tx_hash) AS tx, ${tokenIndexSql('token')}::TINYINT AS token_index
    FROM (${select('balances', '"address" AS address_as_written', `${rowHashSql(balances)} AS row_hash`)})`);
  if (scope.kind === 'incremental') {
    await loadIncrementalBalances(db, scope);
  } else if (shard === null) {
    if (scope.digest) {
      // One read of the file for the load and the digests: each row's hash rides along, is
      // summed per hour, and goes.
      await db.run(`CREATE TABLE balance_rows AS ${balanceRowsSql('true', ', b.row_hash')}`);
      const units = `SELECT ${unitSql(balances, 'ts')} AS unit, ${unitAggregatesSql('row_hash', 'ts')} FROM balance_rows GROUP BY unit`;
      await db.run(`INSERT INTO input_days ${inputDaysOfUnitsSql(balances, units)}`);
      await db.run('ALTER TABLE balance_rows DROP COLUMN row_hash');
    } else {
      await db.run(`CREATE TABLE balance_rows AS ${balanceRowsSql('true')}`);
    }
    await db.run('CREATE VIEW every_balance_row AS SELECT * FROM balance_rows');
  } else {
    await db.run(`CREATE TABLE shard_wallets AS SELECT id FROM addresses WHERE ${shardFilterSql(shard, 'address')}`);
    await db.run(`CREATE TABLE balance_rows AS ${balanceRowsOfWalletsSql('SELECT id FROM shard_wallets')}`);
    // The rules across rows read every row, not the shard's: every shard of one export refuses
    // it, or none (a key repeated with another balance in shard 3's rows only was once accepted by
    // shards 1, 2 and 4).
    await db.run(`CREATE VIEW every_balance_row AS ${balanceRowsSql('true')}`);
  }
  if (scope.kind === 'whole') await db.run('CREATE VIEW checked_balance_rows AS SELECT * FROM every_balance_row');
  await db.run(`
    CREATE TABLE repeated_balance_keys AS
    SELECT chain_id, block_number, log_index, account, token_index FROM checked_balance_rows
    GROUP BY chain_id, block_number, log_index, account, token_index HAVING count(*) > 1`);
  await db.run(`
    CREATE TABLE repeated_balance_rows AS
    SELECT chain_id, block_number, log_index, account, token_index,
           min(raw) <> max(raw) AS balance_conflict,
           min(tx) <> max(tx) AS tx_hash_conflict,
           min(ts) <> max(ts) AS timestamp_conflict,
           count(*) AS copies
    FROM checked_balance_rows SEMI JOIN repeated_balance_keys USING (chain_id, block_number, log_index, account, token_index)
    GROUP BY chain_id, block_number, log_index, account, token_index`);
  await db.run(`CREATE TABLE prices AS SELECT DISTINCT * FROM (${select('prices')})`);
  await db.run(`CREATE TABLE multipliers AS ${select('multipliers')}`);
  await db.run(`CREATE TABLE seasons AS ${select('seasons')}`);
  // Points are the largest input: a view, not a copy (the points histories read it twice, for each
  // wallet's facts and for its sums). The address as written is kept beside the lower-cased one,
  // so that they group 300M rows by it and lower-case only the groups (build/compute/points-history.ts).
  const pointsFrom = scope.kind === 'incremental' ? scope.pointsFrom : null;
  const points = inputOf('points');
  await db.run(
    `CREATE VIEW points AS ${select('points', 'CAST("address" AS VARCHAR) AS address_as_written')}${pointsFrom === null ? '' : ` WHERE ${fromDaySql(points, pointsFrom)}`}`,
  );
}

/**
 * An incremental night's balances: `balance_rows` holds the rows of day `from` on; every row of
 * the export (`every_balance_row`) is the previous night's rows of the earlier days (its shard
 * folders' segments, the same rows: their days' digests say so), their keys turned into tonight's
 * ids, and those. The rules across rows check the loaded rows, with every earlier row that repeats
 * one of their keys (found by its key in the file: a row of another day can repeat a key).
 */
async function loadIncrementalBalances(db: Database, scope: Extract<LoadScope, { kind: 'incremental' }>): Promise<void> {
  const from = firstSecondOfDay(scope.from);
  await db.run(`CREATE TABLE balance_rows AS ${balanceRowsSql(`b.timestamp >= ${from}`)}`);
  await db.run(
    `CREATE VIEW every_balance_row AS ${nightRowsOfAccountsSql({ previous: scope.previous.balanceRows, before: from }, 'SELECT id FROM addresses')}`,
  );
  await db.run(`
    CREATE TABLE checked_balance_rows AS
    SELECT * FROM balance_rows
    UNION ALL
    SELECT b.chain_id, b.block_number, b.log_index, a.id AS account, b.token_index, b.balance AS raw, b.tx, NULL AS tx_hash, b.timestamp AS ts
    FROM balance_written b
    SEMI JOIN (SELECT DISTINCT chain_id, block_number, log_index FROM balance_rows) k
      ON k.chain_id = b.chain_id AND k.block_number = b.block_number AND k.log_index = b.log_index
    JOIN addresses a ON a.address = b.address
    WHERE b.timestamp < ${from}`);
}

/**
 * Balance rows as the later stages read them (`balance_rows`), from the rows as read
 * (`balance_written`, a view of balances.parquet) that `where` keeps: each with its account's id,
 * the hash of its tx_hash, and the tx_hash text where the account is named in venue_b_accounts.
 */
function balanceRowsSql(where: string, extra = ''): string {
  return `
    SELECT b.chain_id, b.block_number, b.log_index, a.id AS account, b.token_index, b.balance AS raw, b.tx,
           CASE WHEN a.keeps_tx_hash THEN b.tx_hash END AS tx_hash, b.timestamp AS ts${extra}
    FROM balance_written b
    JOIN balance_address_ids a ON a.written = b.address_as_written
    WHERE ${where}`;
}

/**
 * Each account's largest raw balance up to `$now` on a chain, per token, as a DOUBLE, with the
 * wallet its rows count for there (build/compute/attribution.ts), over every balance row of the
 * export: the bound the night's checks of summed balances and of values put on a wallet's balance.
 * `where` narrows the rows (it may name `b`, the row, and `v`, its owner). `from`: null for every
 * row of the export as the load holds them (`every_balance_row`), or an incremental night's rows
 * (NightBalanceRows), first cut to the accounts of `accounts` (a relation of ids, `id`) when given.
 */
export function largestAccountBalancesSql(
  where = 'true',
  from: Exclude<NightBalanceRows, 'export' | 'balance_rows'> | null = null,
  accounts: string | null = null,
): string {
  const rows = from === null ? 'SELECT * FROM every_balance_row' : nightRowsOfAccountsSql(from, accounts ?? 'SELECT id FROM addresses');
  return `
    SELECT b.chain_id, ${walletOfRowSql('b')} AS wallet, b.token_index, b.account, max(b.raw)::DOUBLE AS largest
    FROM (${rows}) b
    ${joinOwnerSql('b')}
    WHERE b.ts <= $now AND (${where})
    GROUP BY ALL`;
}

/**
 * An incremental night's balance rows of the accounts `accounts` selects (a relation of ids, `id`):
 * the previous night's of the days before `before`, cut to those accounts by their lasting keys
 * and then numbered with tonight's ids, and the loaded ones.
 */
function nightRowsOfAccountsSql(rows: { previous: StoredBalanceRows; before: number }, accounts: string): string {
  return `
    SELECT chain_id, block_number, log_index, id AS account, token_index, raw, tx, tx_hash, ts FROM (
      SELECT ${rows.previous.columns('p')}, a.id
      FROM ${rows.previous.files} p JOIN (SELECT key, id FROM addresses WHERE id IN (${accounts})) a ON a.key = p.account
      WHERE p.ts < ${rows.before})
    UNION ALL SELECT * FROM balance_rows WHERE account IN (${accounts})`;
}

/**
 * The balance rows that count for the wallets whose ids `walletIds` selects (the attribution of
 * build/compute/attribution.ts). Read from the export, the rows are first cut by their address as written (the wallets' and their
 * sub-accounts'), so that the costly part of reading a row runs on those rows only; read from
 * `balance_rows` when it holds every row (a build without a shard, prepare's full night), or as
 * an incremental night finds them, they are cut by account id. A sub-account of one of them that
 * is a wallet of its own on another chain is then cut by the rule.
 */
export function balanceRowsOfWalletsSql(walletIds: string, from: NightBalanceRows = 'export'): string {
  const rows =
    from === 'export'
      ? balanceRowsSql('b.address_as_written IN (SELECT written FROM balance_address_ids WHERE id IN (SELECT id FROM accounts))')
      : from === 'balance_rows'
        ? 'SELECT * FROM balance_rows WHERE account IN (SELECT id FROM accounts)'
        : nightRowsOfAccountsSql(from, 'SELECT id FROM accounts');
  return `
    WITH wallets AS (${walletIds}),
    accounts AS (${accountsOfWalletsSql('wallets')})
    SELECT b.* FROM (${rows}) b
    ${joinOwnerSql('b')}
    WHERE ${walletOfRowSql('b')} IN (SELECT id FROM wallets)`;
}
