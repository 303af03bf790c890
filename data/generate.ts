/**
 * A seeded synthetic dataset that satisfies the input contract (docs/input.md), generated with
 * DuckDB SQL at any size: the bundled sample (tens of wallets) and the benchmark (100,000) come
 * from the same code. Randomness is `hash(seed, row, purpose)`, so a seed gives the same rows on
 * any machine and thread count; rows are written in a fixed order so it also gives the same bytes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
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
}

const CHAINS = [1, 10, 8453];

export async function generateDataset(options: DatasetOptions): Promise<void> {
  fs.mkdirSync(options.outDir, { recursive: true });
  const instance = await DuckDBInstance.create(':memory:', { threads: String(options.threads ?? 2), memory_limit: '4GB' });
  const db = await instance.connect();
  const run = (sql: string) => db.run(sql);
  const seed = options.seed;
  // u(x, purpose): a uniform number in [0, 1) from the seed, a row key and a purpose.
  await run(`CREATE MACRO u(x, purpose) AS (hash(${seed}, x, purpose) % 1000000007) / 1000000007.0`);
  await run(`CREATE MACRO addr(x, purpose) AS '0x' || md5(concat(${seed}, ':', purpose, ':', x)) || left(md5(concat(purpose, ':', x, ':', ${seed})), 8)`);
  await run(`CREATE TABLE chains AS SELECT unnest([${CHAINS.join(',')}]) AS chain_id`);
  await run(`CREATE TABLE token_keys AS SELECT * FROM (VALUES
    (0, 'uty', 18, 1.0), (1, 'yuty', 18, 1.08), (2, 'venueASy', 18, 1.05), (3, 'venueBYuty', 18, 1.07),
    (4, 'venueBUsdc', 6, 1.0), (5, 'venueAYt', 18, 0.04), (6, 'venueALp', 18, 2.1)) t(token_index, token, decimals, base_price)`);

  // Wallets, and venue-B sub-accounts for 10% of them (1 to 3 each, each on one chain).
  await run(`CREATE TABLE wallets AS
    SELECT i AS wallet_id, addr(i, 'wallet') AS address,
           -- long tail: most wallets near the mean, a few whales
           greatest(1, round(${options.rowsPerWallet} * -ln(1 - u(i, 'size')) * CASE WHEN u(i, 'whale') < 0.01 THEN 5 ELSE 0.96 END))::INTEGER AS row_count
    FROM range(${options.wallets}) r(i)`);
  await run(`CREATE TABLE sub_accounts AS
    SELECT w.wallet_id, k, addr(w.wallet_id * 10 + k, 'sub') AS account,
           ${CHAINS.length > 0 ? `[${CHAINS.join(',')}][1 + (hash(${seed}, w.wallet_id, k, 'subchain') % ${CHAINS.length})::INTEGER]` : '1'} AS chain_id,
           greatest(1, (w.row_count * 0.3)::INTEGER) AS row_count
    FROM wallets w, range(1 + (hash(${seed}, w.wallet_id, 'subcount') % 3)::INTEGER) s(k)
    WHERE u(w.wallet_id, 'hassub') < 0.10`);

  // Balance rows: every account joins on some day of the period and is active from then on, on a
  // main chain (85% of its rows) and a second one, holding mostly uty plus two other tokens, like
  // real users do. The balance after a log is a random raw amount, sometimes zero and sometimes
  // the same as before (a no-op transfer).
  const start = Date.parse(`${options.startDate}T00:00:00Z`) / 1000;
  const span = options.days * 86400;
  await run(`CREATE TABLE balances AS
    WITH accounts AS (
      SELECT address, wallet_id AS account_id, row_count, NULL::BIGINT AS fixed_chain FROM wallets
      UNION ALL SELECT account, 1000000000 + wallet_id * 10 + k, row_count, chain_id FROM sub_accounts
    ),
    events AS (
      SELECT a.address, a.account_id, n, a.fixed_chain,
             floor(u(a.account_id, 'join') * ${options.days})::BIGINT * 86400 AS joined,
             u(a.account_id * 7919 + n, 'time') AS moment
      FROM accounts a, range(a.row_count) e(n)
    ),
    timed AS (
      SELECT *, (${start} + joined + floor(moment * (${span} - joined)))::BIGINT AS ts,
             CASE WHEN u(account_id * 131 + n, 'chainpick') < 0.85 THEN hash(${seed}, account_id, 'c0') ELSE hash(${seed}, account_id, 'c1') END % ${CHAINS.length} AS chain_pick,
             CASE WHEN u(account_id * 13 + n, 'token') < 0.5 THEN 0
                  WHEN u(account_id * 17 + n, 'token2') < 0.6 THEN (hash(${seed}, account_id, 't1') % 7)::INTEGER
                  ELSE (hash(${seed}, account_id, 't2') % 7)::INTEGER END AS token_pick
      FROM events
    )
    SELECT coalesce(fixed_chain, [${CHAINS.join(',')}][1 + chain_pick::INTEGER]) AS chain_id,
           ((ts - ${start}) // 2 + 1000000)::BIGINT AS block_number,
           n::INTEGER AS log_index,
           '0x' || md5(concat(${seed}, ':tx:', account_id, ':', n)) || md5(concat(account_id, ':', n, ':tx:', ${seed})) AS tx_hash,
           ts AS timestamp,
           address,
           t.token,
           CASE WHEN u(account_id * 31 + n, 'zero') < 0.05 THEN '0'
                ELSE (1 + (hash(${seed}, account_id, n, 'amount') % 1000000))::VARCHAR || repeat('0', 12 + (hash(${seed}, account_id, n, 'scale') % 8)::INTEGER)
           END AS balance
    FROM timed
    JOIN token_keys t ON t.token_index = token_pick
    ${options.extraBalances ? `UNION ALL SELECT * FROM (${options.extraBalances})` : ''}`);
  // Decimals differ by token (the dollar stablecoin has 6): rescale its generated amounts.
  await run(`UPDATE balances SET balance = CASE WHEN length(balance) > 12 THEN left(balance, length(balance) - 12) ELSE balance END
             WHERE token = 'venueBUsdc' AND tx_hash NOT LIKE '0xsample%'`);

  await run(`CREATE TABLE tokens AS SELECT c.chain_id, t.token, t.decimals FROM chains c, token_keys t`);
  await run(`CREATE TABLE venue_b_accounts AS SELECT s.chain_id, s.account, w.address AS owner FROM sub_accounts s JOIN wallets w USING (wallet_id)
    ${options.extraSubAccounts ? `UNION ALL SELECT * FROM (${options.extraSubAccounts})` : ''}`);

  // Daily prices with gaps: ~5% of days missing, and venueAYt has no price for its first 10 days.
  await run(`CREATE TABLE prices AS
    SELECT c.chain_id, t.token, (DATE '${options.startDate}' + d::INTEGER)::DATE AS date,
           round(t.base_price * (1 + 0.05 * sin(d / 9.0 + t.token_index) + 0.01 * u(d * 100 + t.token_index * 10 + c.chain_id, 'px')), 6)::DOUBLE AS usd_price
    FROM chains c, token_keys t, range(${options.days}) r(d)
    WHERE u(d * 1000 + t.token_index * 10 + c.chain_id % 10, 'gap') >= 0.05
      AND NOT (t.token = 'venueAYt' AND d < 10)`);

  // Points: most wallets earn something on most days of the season the day belongs to.
  await run(`CREATE TABLE points AS
    SELECT CASE WHEN (DATE '${options.startDate}' + d::INTEGER) <= DATE '${options.seasonOneEnd}' THEN 1 ELSE 2 END AS season,
           (DATE '${options.startDate}' + d::INTEGER)::DATE AS date,
           w.address,
           round(u(w.wallet_id * 1000 + d, 'pts') * 100 * (1 + (w.wallet_id % 7)), 2)::DOUBLE AS points
    FROM wallets w, range(${options.days}) r(d)
    WHERE u(w.wallet_id * 977 + d, 'active') < 0.82`);
  await run(`CREATE TABLE multipliers AS SELECT * FROM (VALUES
    (1, 'hold_uty', 1.0, DATE '${options.startDate}', DATE '${options.seasonOneEnd}'),
    (1, 'lp_venue_a', 2.5, DATE '${options.startDate}', DATE '${options.seasonOneEnd}'),
    (1, 'hold_yuty', 1.5, DATE '${options.startDate}', DATE '${options.seasonOneEnd}'),
    (2, 'hold_uty', 1.2, DATE '${options.seasonOneEnd}' + 1, DATE '${options.seasonOneEnd}' + 30),
    (2, 'hold_uty', 1.5, DATE '${options.seasonOneEnd}' + 31, DATE '${options.seasonOneEnd}' + 120),
    (2, 'lend_venue_b', 3.0, DATE '${options.seasonOneEnd}' + 1, DATE '${options.seasonOneEnd}' + 120)
  ) t(season, position, multiplier, first_day, last_day)`);
  await run(`CREATE TABLE seasons AS SELECT * FROM (VALUES (1, DATE '${options.seasonOneEnd}'), (2, NULL::DATE), (3, NULL::DATE)) t(season, as_of)`);

  const order: Record<string, string> = {
    balances: 'chain_id, block_number, log_index, address, token',
    tokens: 'chain_id, token',
    venue_b_accounts: 'chain_id, account',
    prices: 'chain_id, token, date',
    points: 'season, date, address',
    multipliers: 'season, position, first_day',
    seasons: 'season',
  };
  for (const [table, by] of Object.entries(order)) {
    const file = path.join(options.outDir, `${table}.parquet`);
    await run(`COPY (SELECT * FROM ${table} ORDER BY ${by}) TO ${sqlString(file)} (FORMAT parquet, COMPRESSION zstd)`);
  }
  db.disconnectSync();
  instance.closeSync();
}
