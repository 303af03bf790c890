/**
 * Attribution (venue-B sub-accounts count for their owner) and the portfolio history: the
 * `snapshots` table, one row per transaction that changed a wallet's summed balance of a token on a
 * chain (a series, keyed as series-key.ts says). The write stage assembles the document of `GET
 * /v1/address/{address}/portfolio` from a wallet's snapshots (build/write/history-document.ts).
 */
import type { Database } from '../database.ts';
import { UserError } from '../../core/errors.ts';
import { newYorkDayFromTableSql, newYorkDaysTableSql } from '../../core/new-york-day.ts';
import { MAX_CHAINS, seriesKeySql, walletChainKeySql, walletChainOfSeriesSql } from './series-key.ts';
import { largestAccountBalancesSql } from '../input/load.ts';
import {
  joinOwnerSql,
  rowOfSeveralAccountsSql,
  SUB_ACCOUNTS_AND_OWNERS_SQL,
  WALLETS_WITH_SUB_ACCOUNTS_SQL,
  walletOfRowSql,
} from './attribution.ts';

/** The tables one run of the history rule reads and writes. */
export interface SnapshotTables {
  /** Balance rows, shaped as `balance_rows` (build/input/load.ts). */
  rows: string;
  /** New York days covering those rows, made here. */
  days: string;
  snapshots: string;
}

const BUILD_TABLES: SnapshotTables = { rows: 'balance_rows', days: 'new_york_days', snapshots: 'snapshots' };

/**
 * Chains get dense indexes in numeric chain ID order, for the series keys (series-key.ts) and the
 * document threads. Every balance row's chain is in tokens.parquet (build/input/check.ts).
 */
export async function numberChains(db: Database): Promise<void> {
  await db.run(`
    CREATE TABLE chains AS
    SELECT chain_id, (row_number() OVER (ORDER BY chain_id) - 1)::INTEGER AS chain_index, chain_id::VARCHAR AS chain_text
    FROM (SELECT DISTINCT chain_id FROM tokens)`);
  const [{ chains } = { chains: 0 }] = await db.rows<{ chains: number }>('SELECT count(*)::DOUBLE AS chains FROM chains');
  if (chains > MAX_CHAINS)
    throw new UserError(`tokens.parquet: column "chain_id": ${chains} distinct chains, more than the ${MAX_CHAINS} a series key holds`);
}

/**
 * For a night split among shards, the one refusal of the history rule that depends on a wallet's
 * sums (a summed balance beyond 2^127 - 1), made for every wallet as the whole build makes it,
 * though no shard computes every wallet's snapshots. Only a wallet with venue-B sub-accounts on a
 * chain sums several accounts, and its sum can reach 2^127 only if its accounts' largest balances
 * add up to 2^126 or more (as doubles, well clear of their rounding): those few wallets run the
 * history rule exactly, which refuses them in the whole build's words. `rowsOfWallets` and
 * `largestOfAccounts` (each account's largest balances, of the accounts named in venue_b_accounts)
 * say where every row is found (build/input/load.ts).
 */
export async function checkSummedBalances(
  db: Database,
  nowSeconds: number,
  rowsOfWallets: (walletIds: string) => string,
  largestOfAccounts: (where: string, accounts: string) => string = (where) => largestAccountBalancesSql(where),
): Promise<void> {
  await db.run(
    `CREATE TABLE summed_balance_risks AS
     -- Only the accounts of wallets with sub-accounts on the chain: a sum over several accounts.
     WITH accounts AS (${largestOfAccounts(rowOfSeveralAccountsSql('b'), SUB_ACCOUNTS_AND_OWNERS_SQL)})
     SELECT DISTINCT wallet AS id FROM accounts GROUP BY chain_id, wallet, token_index HAVING sum(largest) >= ${2 ** 126}`,
    { now: nowSeconds },
  );
  const [{ risks } = { risks: 0 }] = await db.rows<{ risks: number }>('SELECT count(*)::INTEGER AS risks FROM summed_balance_risks');
  if (risks > 0) {
    await db.run(`CREATE TABLE summed_balance_rows AS ${rowsOfWallets('SELECT id FROM summed_balance_risks')}`);
    await computeSnapshotsOf(db, nowSeconds, {
      rows: 'summed_balance_rows',
      days: 'summed_balance_days',
      snapshots: 'summed_balance_snapshots',
    });
    for (const table of ['summed_balance_rows', 'summed_balance_days', 'summed_balance_snapshots']) await db.run(`DROP TABLE ${table}`);
  }
  await db.run('DROP TABLE summed_balance_risks');
}

/** The build's own snapshots: the history rule over `balance_rows` (its wallets', or its shard's). */
export async function computeSnapshots(db: Database, nowSeconds: number): Promise<void> {
  await computeSnapshotsOf(db, nowSeconds, BUILD_TABLES);
}

/**
 * The history rule over the rows of `tables.rows` into `tables.snapshots`: the build's own (its
 * wallets, or its shard's), and the few wallets a shard's build probes for the facts of the whole
 * export (export-facts.ts). Needs the `chains` table (numberChains).
 */
export async function computeSnapshotsOf(db: Database, nowSeconds: number, tables: SnapshotTables): Promise<void> {
  // New York days as integers (core/new-york-day.ts): each row's day read off a table of the days
  // in range and their first instants.
  await db.run(`CREATE TABLE ${tables.days} AS ${newYorkDaysTableSql(tables.rows, 'ts')}`);
  const newYorkDay = newYorkDayFromTableSql('s.ts', tables.days);
  try {
    await db.run(
      `
      CREATE TABLE ${tables.snapshots} AS
      WITH
      -- Attribution: on each chain a sub-account's rows count for its owner, whatever the token.
      attributed AS (${attributedRowsSql(tables.rows, { txHashOnly: false })}),
      -- Wallets with sub-accounts on a chain, whose balance is a sum over several accounts.
      owners AS (
        SELECT DISTINCT ${walletChainKeySql('o.wallet', 'c.chain_index')} AS wallet_chain
        FROM (${WALLETS_WITH_SUB_ACCOUNTS_SQL}) o JOIN chains c ON c.chain_id = o.chain_id
      ),
      -- History: a series' rows are grouped by transaction; transactions are ordered by
      -- (block_number, smallest log_index), then tx_hash; within one, an account's rows by
      -- log_index.
      --
      -- A wallet that is its only account on the chain (most of them): its balance after a
      -- transaction is the raw balance of the transaction's last row, and the transaction is a
      -- snapshot when that differs from the balance after the previous one (which equals the
      -- last snapshot's, since transactions in between changed nothing). One grouping, one window.
      -- Two of its transactions never tie on (block_number, smallest log_index): their first rows
      -- would repeat a key of balances.parquet with another tx_hash, which the check refuses. So
      -- the hash, not the text, breaks the order here.
      -- The window that sorts each series also numbers its transactions (with gaps once filtered),
      -- so that the stream sorts on (series, number) instead of the transaction order's three keys.
      single_transactions AS (
        SELECT series, block_number, min(log_index) AS tx_first_log, tx, max(ts) AS ts, arg_max(raw, log_index) AS raw_balance
        FROM attributed a ANTI JOIN owners o ON o.wallet_chain = ${walletChainOfSeriesSql('a.series')}
        GROUP BY series, block_number, tx
      ),
      single_summed AS (
        SELECT series, number, ts, raw_balance
        FROM (SELECT *, lag(raw_balance, 1, 0) OVER in_order AS previous, row_number() OVER in_order::INTEGER AS number
              FROM single_transactions
              WINDOW in_order AS (PARTITION BY series ORDER BY block_number, tx_first_log, tx))
        WHERE raw_balance <> previous
      ),
      -- A wallet with sub-accounts: the general rule, for its rows only. Transactions of different
      -- accounts may tie on (block_number, smallest log_index); tx_hash orders them. Only the rows
      -- of addresses named in venue_b_accounts keep it (build/input/check.ts): all of these rows,
      -- and few others, so they are read apart from the rest (carried beside every row, the text
      -- slowed the whole statement: bench/LOG.md).
      owner_rows AS (
        SELECT *, min(log_index) OVER (PARTITION BY series, block_number, tx) AS tx_first_log
        FROM (${attributedRowsSql(tables.rows, { txHashOnly: true })}) a
        SEMI JOIN owners o ON o.wallet_chain = ${walletChainOfSeriesSql('a.series')}
      ),
      -- Each row replaces its account's previous balance (0 before the first row); the wallet's sum
      -- moves by the difference. Exact HUGEINT arithmetic throughout.
      account_changes AS (
        SELECT *, raw - coalesce(lag(raw) OVER (
                 PARTITION BY account_series ORDER BY block_number, tx_first_log, tx_hash, tx, log_index), 0) AS change
        FROM owner_rows
      ),
      owner_transactions AS (
        SELECT series, block_number, tx_first_log, tx_hash, tx, max(ts) AS ts, sum(change) AS change
        FROM account_changes
        GROUP BY series, block_number, tx_first_log, tx_hash, tx
      ),
      -- A snapshot exactly when the sum differs from the previous one: the sum after a transaction
      -- minus the sum before it is the transaction's change, so "differs" is "change <> 0", and
      -- dropping the unchanged transactions leaves the running sum as it was.
      owner_summed AS (
        SELECT series, row_number() OVER in_order::INTEGER AS number, ts, sum(change) OVER (in_order ROWS UNBOUNDED PRECEDING) AS raw_balance
        FROM owner_transactions
        WHERE change <> 0
        WINDOW in_order AS (PARTITION BY series ORDER BY block_number, tx_first_log, tx_hash, tx)
      ),
      summed AS (SELECT * FROM single_summed UNION ALL SELECT * FROM owner_summed)
      -- The sum stays an exact HUGEINT: it becomes decimal text on a document thread
      -- (exact-amount.ts).
      SELECT s.series, s.number, s.ts, ${newYorkDay.day} AS day, s.raw_balance
      FROM summed s
      ${newYorkDay.join}`,
      { now: nowSeconds },
    );
  } catch (error) {
    if (error instanceof Error && /Overflow in HUGEINT/.test(error.message)) {
      throw new UserError(
        'balances.parquet: column "balance": a wallet\'s summed raw balance of one token on one chain exceeds 2^127 - 1, the largest exact sum this build can hold',
      );
    }
    throw error;
  }
}

/**
 * The attribution of the balance rows up to now: each row's series (its owner's on that chain
 * when the account is a sub-account there, else its own) and its account's series. With
 * `txHashOnly`, only the rows that kept their tx_hash text, with it.
 */
function attributedRowsSql(rows: string, { txHashOnly }: { txHashOnly: boolean }): string {
  return `
    SELECT ${seriesKeySql(walletOfRowSql('b'), 'c.chain_index', 'b.token_index')} AS series,
           ${seriesKeySql('b.account', 'c.chain_index', 'b.token_index')} AS account_series,
           b.block_number, b.log_index::INTEGER AS log_index, b.tx, b.ts, b.raw${txHashOnly ? ', b.tx_hash' : ''}
    FROM ${rows} b
    JOIN chains c ON c.chain_id = b.chain_id
    ${joinOwnerSql('b')}
    WHERE b.ts <= $now${txHashOnly ? ' AND b.tx_hash IS NOT NULL' : ''}`;
}
