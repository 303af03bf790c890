/**
 * A seeded synthetic dataset that satisfies the input contract (docs/input.md), generated with
 * DuckDB SQL at any size: the bundled sample (tens of wallets) and the benchmark (up to millions of
 * wallets) come from the same code. Randomness is `hash(seed, row, purpose)`, so a seed gives the
 * same rows on any machine and thread count; every file is written in the total order of its key
 * so it also gives the same bytes.
 *
 * Streamed: no large table is built. Every table is a view computed from `range()`, and each
 * Parquet file is one `COPY`: the points are made in their order; the balances (about 100M rows at
 * 1,000,000 wallets) are put in theirs by a sort of their keys alone, narrow integers, each row's
 * wide columns (hashes as text, the address) made after it (balanceRowsInOrderSql); DuckDB's sort
 * spills to `tempDirectory` beyond `memoryLimit`, so 1,000,000 wallets take the same memory as
 * 1,000. (An earlier version built every table in memory first, with a 4GB limit; a later one
 * sorted the balances' whole rows, which spilled 22 GB at 1,000,000 wallets and took 12 of its 14
 * minutes: bench/LOG.md.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { formatBytes } from '../core/format.ts';
import { sqlString } from '../build/database.ts';

export interface DatasetOptions {
  outDir: string;
  wallets: number;
  seed: number;
  /** First day of activity, YYYY-MM-DD. */
  startDate: string;
  days: number;
  /** Season 1 is frozen at this day; season 2 runs from the next day on; season 3 is announced only. */
  seasonOneEnd: string;
  /** Average balance rows per wallet (a long tail around it). */
  rowsPerWallet: number;
  /** Hand-written rows appended to the balances, for the stories a sample should show. */
  extraBalances?: string;
  /** Hand-written sub-accounts, as SQL rows (chain_id, account, owner). */
  extraSubAccounts?: string;
  threads?: number;
  /** DuckDB's memory limit (default 2GB): its sorts spill to `tempDirectory` beyond it. */
  memoryLimit?: string;
  /** Where DuckDB spills (default a folder in `outDir`, removed at the end). */
  tempDirectory?: string;
  /** Called with a line of progress: each file as it starts and ends, and every `progressSeconds`. */
  onProgress?: (line: string) => void;
  /** Keep the files an earlier, interrupted run wrote whole (each is renamed into place once complete). */
  keepExisting?: boolean;
  progressSeconds?: number;
}

const CHAINS = [1, 10, 8453];

export async function generateDataset(options: DatasetOptions): Promise<void> {
  fs.mkdirSync(options.outDir, { recursive: true });
  const tempDirectory = options.tempDirectory ?? path.join(options.outDir, '.generate-spill');
  const instance = await DuckDBInstance.create(':memory:', {
    threads: String(options.threads ?? 2),
    memory_limit: options.memoryLimit ?? '2GB',
    temp_directory: tempDirectory,
  });
  const db = await instance.connect();
  try {
    for (const sql of datasetViews(options)) await db.run(sql);
    const extra = (await db.runAndReadAll('SELECT * FROM extra_balances ORDER BY extra_row')).getRowObjectsJS() as Record<
      string,
      unknown
    >[];
    for (const [table, key] of Object.entries(ORDER)) {
      const file = path.join(options.outDir, `${table}.parquet`);
      if (options.keepExisting && fs.existsSync(file)) {
        options.onProgress?.(`${table}.parquet: kept (written by an earlier run)`);
        continue;
      }
      // Written under another name and renamed once whole: a file that exists is complete.
      const partial = `${file}.part`;
      await withProgress(table, partial, tempDirectory, options, () =>
        db.run(
          `COPY (${table === 'balances' ? balanceRowsInOrderSql(options, extra) : `SELECT * FROM ${table}${key === null ? '' : ` ORDER BY ${key}`}`}) TO ${sqlString(partial)} (FORMAT parquet, COMPRESSION zstd)`,
        ),
      );
      fs.renameSync(partial, file);
    }
  } finally {
    db.disconnectSync();
    instance.closeSync();
    if (options.tempDirectory === undefined) fs.rmSync(tempDirectory, { recursive: true, force: true });
  }
}

/**
 * The order each file is written in: a total order of its rows, so a seed gives the same bytes.
 * Null: the view yields its rows in that order already (points: season, date, address). The
 * balances' is kept by a sort of their keys (balanceRowsInOrderSql).
 */
const ORDER: Record<string, string | null> = {
  balances: 'chain_id, block_number, log_index, address, token',
  tokens: 'chain_id, token',
  venue_b_accounts: 'chain_id, account',
  prices: 'chain_id, token, date',
  points: null,
  multipliers: 'season, position, first_day',
  seasons: 'season',
};

/**
 * Runs one COPY, reporting its time, what DuckDB has spilled so far and the bytes of the file
 * written so far (DuckDB's own percentage stays at 0 for a query over `range()` of a lateral size).
 */
async function withProgress(
  _table: string,
  file: string,
  tempDirectory: string,
  options: DatasetOptions,
  write: () => Promise<unknown>,
): Promise<void> {
  const report = options.onProgress;
  const started = performance.now();
  const elapsed = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;
  report?.(`${path.basename(file)}: writing...`);
  const timer =
    report &&
    setInterval(
      () => {
        report(
          `${path.basename(file)}: ${elapsed()}, spilled ${formatBytes(folderBytes(tempDirectory))}, written ${formatBytes(fileBytes(file))}`,
        );
      },
      (options.progressSeconds ?? 5) * 1000,
    );
  try {
    await write();
  } finally {
    if (timer) clearInterval(timer);
  }
  report?.(`${path.basename(file)}: ${formatBytes(fileBytes(file))} in ${elapsed()}`);
}

function fileBytes(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

function folderBytes(folder: string): number {
  try {
    return fs.readdirSync(folder).reduce((sum, name) => sum + fileBytes(path.join(folder, name)), 0);
  } catch {
    return 0;
  }
}

/** The dollar stablecoin's generated amounts, rescaled to its 6 decimals (the hand-written rows are as written). */
const SCALED_BALANCE_SQL = `CASE WHEN token = 'venueBUsdc' AND tx_hash NOT LIKE '0xsample%' AND length(balance) > 12 THEN left(balance, length(balance) - 12) ELSE balance END`;

const TOKEN_NAMES = ['uty', 'yuty', 'venueASy', 'venueBYuty', 'venueBUsdc', 'venueAYt', 'venueALp'];

/** The number a venue-B sub-account's balance rows take as their account, above every wallet's: 1,000,000,000 + wallet * 10 + k. */
const SUB_ACCOUNT_IDS = 1_000_000_000;

/** SQL of an account whose balance rows a query makes: its number, its address, its fixed chain (a sub-account's; null for a wallet). */
interface AccountSql {
  id: string;
  address: string;
  fixedChain: string;
}

/**
 * The columns of an account's balance row number `n` (a BIGINT from 0), by name: every value a
 * function of the seed, the account and `n`, so that the sort of the keys alone can make the rest
 * after it.
 */
function generatedBalanceSql(options: DatasetOptions, account: AccountSql, n: string): Record<string, string> {
  const seed = options.seed;
  const start = Date.parse(`${options.startDate}T00:00:00Z`) / 1000;
  const span = options.days * 86400;
  const id = account.id;
  const joined = `(floor(u(${id}, 'join') * ${options.days})::BIGINT * 86400)`;
  const moment = `u(${id} * 7919 + ${n}, 'time')`;
  const ts = `(${start} + ${joined} + floor(${moment} * (${span} - ${joined})))::BIGINT`;
  const chainPick = `(CASE WHEN u(${id} * 131 + ${n}, 'chainpick') < 0.85 THEN hash(${seed}, ${id}, 'c0') ELSE hash(${seed}, ${id}, 'c1') END % ${CHAINS.length})`;
  const tokenPick = `(CASE WHEN u(${id} * 13 + ${n}, 'token') < 0.5 THEN 0
                  WHEN u(${id} * 17 + ${n}, 'token2') < 0.6 THEN (hash(${seed}, ${id}, 't1') % 7)::INTEGER
                  ELSE (hash(${seed}, ${id}, 't2') % 7)::INTEGER END)`;
  const token = `[${TOKEN_NAMES.map((name) => `'${name}'`).join(', ')}][1 + ${tokenPick}]`;
  const chainId = `coalesce(${account.fixedChain}, [${CHAINS.join(',')}][1 + ${chainPick}::INTEGER])`;
  return {
    chain_id: chainId,
    block_number: `((${ts} - ${start}) // 2 + 1000000)::BIGINT`,
    log_index: `${n}::INTEGER`,
    tx_hash: `'0x' || md5(concat(${seed}, ':tx:', ${id}, ':', ${n})) || md5(concat(${id}, ':', ${n}, ':tx:', ${seed}))`,
    timestamp: ts,
    address: account.address,
    token,
    balance: `CASE WHEN u(${id} * 31 + ${n}, 'zero') < 0.05 THEN '0'
                ELSE (1 + (hash(${seed}, ${id}, ${n}, 'amount') % 1000000))::VARCHAR || repeat('0', 12 + (hash(${seed}, ${id}, ${n}, 'scale') % 8)::INTEGER)
           END`,
  };
}

/** `columns` as a SELECT list, each `AS` its name (those of `names`, in that order). */
const selectList = (columns: Record<string, string>, names = BALANCE_COLUMNS, prefix = '') =>
  names.map((name) => `${columns[name]} AS ${prefix}${name}`).join(', ');

/**
 * An account from its number alone, as the wallets and sub_accounts views make it (so that the
 * rows after the sort need no join, which would not keep their order).
 */
function accountOfIdSql(options: DatasetOptions, id: string): AccountSql {
  const sub = `(${id} - ${SUB_ACCOUNT_IDS})`;
  return {
    id,
    address: `CASE WHEN ${id} >= ${SUB_ACCOUNT_IDS} THEN addr(${sub}, 'sub') ELSE addr(${id}, 'wallet') END`,
    fixedChain: `CASE WHEN ${id} >= ${SUB_ACCOUNT_IDS} THEN [${CHAINS.join(',')}][1 + (hash(${options.seed}, ${sub} // 10, ${sub} % 10, 'subchain') % ${CHAINS.length})::INTEGER] END`,
  };
}

/** An account as a row `a` of balance_accounts. */
const ACCOUNT_ROW: AccountSql = { id: 'a.account_id', address: 'a.address', fixedChain: 'a.fixed_chain' };

/** Bits of a row's key that hold its number within its account (a generated row's key: account << ROW_BITS | n). */
const ROW_BITS = 24;

const BALANCE_COLUMNS = ['chain_id', 'block_number', 'log_index', 'tx_hash', 'timestamp', 'address', 'token', 'balance'];

/**
 * The balances in the file's order (chain_id, block_number, log_index, address, token) without a
 * sort of their rows: the sort orders each row's key columns (integers: the address and the token
 * by their places in that order) and one integer that names the row (its account and number, or
 * minus the number of a hand-written row), about 40 bytes a row; the wide columns (the tx hash and
 * the address as text, the amount) are made after it, from that integer alone, row by row in the
 * sort's order (a join there would not keep it). `extra`: the hand-written rows, in extra_row order.
 */
function balanceRowsInOrderSql(options: DatasetOptions, extra: Record<string, unknown>[]): string {
  const keys = `
    SELECT k.chain_id, k.block_number, k.log_index, k.address_rank, t.token_rank, k.row_key
    FROM (
      SELECT ${selectList(generatedBalanceSql(options, ACCOUNT_ROW, 'e.n'), ['chain_id', 'block_number', 'log_index', 'token'])},
             a.address_rank, (a.account_id << ${ROW_BITS}) | e.n AS row_key
      FROM balance_accounts a, range(a.row_count) e(n)
    ) k
    JOIN token_ranks t ON t.token = k.token
    UNION ALL
    SELECT x.chain_id, x.block_number, x.log_index, a.address_rank, t.token_rank, -x.extra_row
    FROM extra_balances x JOIN balance_accounts a ON a.address = x.address AND a.account_id IS NULL JOIN token_ranks t ON t.token = x.token`;
  const generated = generatedBalanceSql(options, accountOfIdSql(options, `(row_key >> ${ROW_BITS})`), `(row_key & ${2 ** ROW_BITS - 1})`);
  // The hand-written rows as a literal list, read by position.
  const written = `[${extra
    .map(
      (row) =>
        `{${BALANCE_COLUMNS.map((column) => `'${column}': ${typeof row[column] === 'string' ? sqlString(row[column] as string) : String(row[column])}`).join(', ')}}`,
    )
    .join(', ')}]`;
  const columns =
    extra.length === 0
      ? `SELECT ${selectList(generated)} FROM sorted`
      : `SELECT ${BALANCE_COLUMNS.map((column) => `CASE WHEN row_key >= 0 THEN ${generated[column]} ELSE ${written}[-row_key].${column}::${BALANCE_TYPES[column]} END AS ${column}`).join(', ')}
         FROM sorted`;
  return `
    WITH sorted AS (SELECT * FROM (${keys}) ORDER BY chain_id, block_number, log_index, address_rank, token_rank)
    SELECT * REPLACE (${SCALED_BALANCE_SQL} AS balance) FROM (${columns})`;
}

const BALANCE_TYPES: Record<string, string> = {
  chain_id: 'BIGINT',
  block_number: 'BIGINT',
  log_index: 'INTEGER',
  tx_hash: 'VARCHAR',
  timestamp: 'BIGINT',
  address: 'VARCHAR',
  token: 'VARCHAR',
  balance: 'VARCHAR',
};

/** The SQL that defines every table as a view over `range()`; nothing is computed until a COPY reads it. */
function datasetViews(options: DatasetOptions): string[] {
  const seed = options.seed;
  return [
    // u(x, purpose): a uniform number in [0, 1) from the seed, a row key and a purpose.
    `CREATE MACRO u(x, purpose) AS (hash(${seed}, x, purpose) % 1000000007) / 1000000007.0`,
    `CREATE MACRO addr(x, purpose) AS '0x' || md5(concat(${seed}, ':', purpose, ':', x)) || left(md5(concat(purpose, ':', x, ':', ${seed})), 8)`,
    // Long tail: most wallets near the mean, a few whales.
    `CREATE MACRO wallet_rows(i) AS greatest(1, round(${options.rowsPerWallet} * -ln(1 - u(i, 'size')) * CASE WHEN u(i, 'whale') < 0.01 THEN 5 ELSE 0.96 END))::INTEGER`,
    `CREATE VIEW chains AS SELECT unnest([${CHAINS.join(',')}]) AS chain_id`,
    `CREATE VIEW token_keys AS SELECT * FROM (VALUES
    (0, 'uty', 18, 1.0), (1, 'yuty', 18, 1.08), (2, 'venueASy', 18, 1.05), (3, 'venueBYuty', 18, 1.07),
    (4, 'venueBUsdc', 6, 1.0), (5, 'venueAYt', 18, 0.04), (6, 'venueALp', 18, 2.1)) t(token_index, token, decimals, base_price)`,

    // Wallets, and venue-B sub-accounts for 10% of them (1 to 3 each, each on one chain).
    `CREATE VIEW wallets AS SELECT i AS wallet_id, addr(i, 'wallet') AS address, wallet_rows(i) AS row_count FROM range(${options.wallets}) r(i)`,
    `CREATE VIEW sub_accounts AS
    SELECT w.wallet_id, k, addr(w.wallet_id * 10 + k, 'sub') AS account, w.address AS owner,
           [${CHAINS.join(',')}][1 + (hash(${seed}, w.wallet_id, k, 'subchain') % ${CHAINS.length})::INTEGER] AS chain_id,
           greatest(1, (w.row_count * 0.3)::INTEGER) AS row_count
    FROM wallets w, range(1 + (hash(${seed}, w.wallet_id, 'subcount') % 3)::INTEGER) s(k)
    WHERE u(w.wallet_id, 'hassub') < 0.10`,

    // Balance rows: every account joins on some day of the period and is active from then on, on a
    // main chain (85% of its rows) and a second one, holding mostly uty plus two other tokens, like
    // real users do. The balance after a log is a random raw amount, sometimes zero and sometimes
    // the same as before (a no-op transfer). Decimals differ by token (the dollar stablecoin has
    // 6): its generated amounts are rescaled, the hand-written rows (tx 0xsample...) are not.
    // Every account (and every address of the hand-written rows) is numbered in address order, the
    // file's order after the block: the sort of the keys reads the number, not the text.
    `CREATE TABLE balance_accounts AS
    SELECT *, (row_number() OVER (ORDER BY address, account_id))::INTEGER AS address_rank FROM (
      SELECT address, wallet_id AS account_id, row_count, NULL::BIGINT AS fixed_chain FROM wallets
      UNION ALL SELECT account, ${SUB_ACCOUNT_IDS} + wallet_id * 10 + k, row_count, chain_id FROM sub_accounts
      ${options.extraBalances ? `UNION ALL SELECT DISTINCT address, NULL::BIGINT, 0, NULL::BIGINT FROM (${options.extraBalances}) x(chain_id, block_number, log_index, tx_hash, timestamp, address, token, balance)` : ''}
    )`,
    `CREATE TABLE extra_balances AS
    SELECT (row_number() OVER (ORDER BY chain_id, block_number, log_index, address, token, tx_hash, timestamp, balance))::BIGINT AS extra_row, *
    FROM (${options.extraBalances ?? 'SELECT NULL::BIGINT, NULL::BIGINT, NULL::INTEGER, NULL::VARCHAR, NULL::BIGINT, NULL::VARCHAR, NULL::VARCHAR, NULL::VARCHAR WHERE false'})
      x(chain_id, block_number, log_index, tx_hash, timestamp, address, token, balance)`,
    `CREATE VIEW token_ranks AS
    SELECT token, (row_number() OVER (ORDER BY token))::UTINYINT AS token_rank
    FROM (SELECT token FROM token_keys UNION SELECT token FROM extra_balances)`,
    `CREATE VIEW balances_unscaled AS
    SELECT ${selectList(generatedBalanceSql(options, ACCOUNT_ROW, 'n'))} FROM balance_accounts a, range(a.row_count) e(n)
    UNION ALL SELECT chain_id, block_number, log_index, tx_hash, timestamp, address, token, balance FROM extra_balances`,
    `CREATE VIEW balances AS SELECT * REPLACE (${SCALED_BALANCE_SQL} AS balance) FROM balances_unscaled`,

    `CREATE VIEW tokens AS SELECT c.chain_id, t.token, t.decimals FROM chains c, token_keys t`,
    `CREATE VIEW venue_b_accounts AS SELECT chain_id, account, owner FROM sub_accounts
    ${options.extraSubAccounts ? `UNION ALL SELECT * FROM (${options.extraSubAccounts})` : ''}`,

    // Daily prices with gaps: ~5% of days missing, and venueAYt has no price for its first 10 days.
    `CREATE VIEW prices AS
    SELECT c.chain_id, t.token, (DATE '${options.startDate}' + d::INTEGER)::DATE AS date,
           round(t.base_price * (1 + 0.05 * sin(d / 9.0 + t.token_index) + 0.01 * u(d * 100 + t.token_index * 10 + c.chain_id, 'px')), 6)::DOUBLE AS usd_price
    FROM chains c, token_keys t, range(${options.days}) r(d)
    WHERE u(d * 1000 + t.token_index * 10 + c.chain_id % 10, 'gap') >= 0.05
      AND NOT (t.token = 'venueAYt' AND d < 10)`,

    // Points: most wallets earn something on most days of the season the day belongs to. Built in
    // the order of the file (season and date follow the day; then the address): cell i is day
    // i // N and the wallet of rank i % N by address, joined to the wallets numbered by address.
    // DuckDB keeps the order of range() through the join's probe side, the filter and the
    // projection, so the ~300M rows of 1M wallets need no sort (that sort, spilled to disk, took
    // most of half an hour); only the wallets are sorted, 1M rows of about 100 bytes.
    `CREATE VIEW points AS
    WITH by_address AS (SELECT (row_number() OVER (ORDER BY address) - 1)::BIGINT AS rank, wallet_id, address FROM wallets),
    cells AS (
      SELECT i // ${options.wallets} AS d, w.wallet_id, w.address
      FROM range(${options.days} * ${options.wallets}) r(i) JOIN by_address w ON w.rank = i % ${options.wallets}
    )
    SELECT CASE WHEN (DATE '${options.startDate}' + d::INTEGER) <= DATE '${options.seasonOneEnd}' THEN 1 ELSE 2 END AS season,
           (DATE '${options.startDate}' + d::INTEGER)::DATE AS date,
           address,
           round(u(wallet_id * 1000 + d, 'pts') * 100 * (1 + (wallet_id % 7)), 2)::DOUBLE AS points
    FROM cells
    WHERE u(wallet_id * 977 + d, 'active') < 0.82`,
    `CREATE VIEW multipliers AS SELECT * FROM (VALUES
    (1, 'hold_uty', 1.0, DATE '${options.startDate}', DATE '${options.seasonOneEnd}'),
    (1, 'lp_venue_a', 2.5, DATE '${options.startDate}', DATE '${options.seasonOneEnd}'),
    (1, 'hold_yuty', 1.5, DATE '${options.startDate}', DATE '${options.seasonOneEnd}'),
    (2, 'hold_uty', 1.2, DATE '${options.seasonOneEnd}' + 1, DATE '${options.seasonOneEnd}' + 30),
    (2, 'hold_uty', 1.5, DATE '${options.seasonOneEnd}' + 31, DATE '${options.seasonOneEnd}' + 120),
    (2, 'lend_venue_b', 3.0, DATE '${options.seasonOneEnd}' + 1, DATE '${options.seasonOneEnd}' + 120)
  ) t(season, position, multiplier, first_day, last_day)`,
    `CREATE VIEW seasons AS SELECT * FROM (VALUES (1, DATE '${options.seasonOneEnd}'), (2, NULL::DATE), (3, NULL::DATE)) t(season, as_of)`,
  ];
}
