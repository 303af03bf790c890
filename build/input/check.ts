/**
 * Stages 2 and 4, check: every rule of the export contract (docs/input.md), as SQL over whole
 * tables. A violation fails the build before anything is written; all violations found are
 * reported together, each naming the file, the column, how many rows and one offending value.
 * The values are checked on the files as read; the rules across rows and files on the tables the
 * load stage made of them (load.ts). Then the inputs as a whole against the build's settings:
 * inputs with nothing to publish, and a build instant far from their events, are refused
 * (docs/input.md, "Refused before the build").
 */
import { DateTime } from 'luxon';
import type { Database } from '../database.ts';
import { DISTANT_NOW_DAYS, type BuildConfig } from '../config.ts';
import { newYorkDayStart } from '../../core/new-york-day.ts';
import { dayNumber } from '../compute/days.ts';
import { UserError } from '../../core/errors.ts';
import { scanError, type ColumnReader, type InputFile } from './read.ts';
import {
  EXTENT_OF_INPUT_DAYS_SQL,
  fromDaySql,
  inputDaysOfUnitsSql,
  isDated,
  rowHashSql,
  unitAggregatesSql,
  unitSql,
} from '../compute/input-days.ts';
import { countOf } from '../../core/format.ts';

interface Violation {
  file: string;
  column: string;
  rows: number;
  problem: string;
  example: string;
}

function formatViolation(violation: Violation): string {
  return `${violation.file}: column "${violation.column}": ${countOf(violation.rows, 'row')} with ${violation.problem}, e.g. ${violation.example}`;
}

/** What the check stage needs of the build's settings. */
export type InputExpectations = Pick<BuildConfig, 'nowSeconds' | 'nowIso' | 'nowOption' | 'allowEmpty' | 'allowDistantNow'>;

/**
 * Which rows the value rules read, and what else the scan makes: every row (a build, a full
 * night), or only the dated files' rows from a day on (an incremental night: the days it loads;
 * a row of an earlier day is the same row the previous night checked, its day's digest says so);
 * with `digest`, each file's rows are also hashed per day into `input_days` in the same scan
 * (prepare's full night; the balances, which the load reads whole anyway, are hashed there).
 */
export interface ValueCheckScope {
  fromDay: number | null;
  digest: boolean;
  /** Also each balance address's first valid timestamp (`first_at` in its distinct values' table), which the next night reads (prepare). */
  firstSeconds: boolean;
}

export const EVERY_ROW: ValueCheckScope = { fromDay: null, digest: false, firstSeconds: false };

/** Every value of every column against its rule, on the files as read (before the load). */
export async function checkInputValues(db: Database, inputs: InputFile[], scope: ValueCheckScope = EVERY_ROW): Promise<void> {
  const violations: Violation[] = [];
  for (const input of inputs) violations.push(...(await checkValues(db, input, scope)));
  fail(violations);
}

/** Where the extent of the events is read from: the loaded tables and the balances' file, or the night's digests. */
export type ExtentSource = 'tables' | 'input_days';

/**
 * The rules across rows and files, over the loaded tables (load.ts), then the inputs against the
 * build's settings (--now, empty exports).
 */
export async function checkInputRelations(
  db: Database,
  inputs: InputFile[],
  expectations: InputExpectations,
  extentFrom: ExtentSource = 'tables',
): Promise<void> {
  const violations: Violation[] = [];
  for (const rule of RELATIONAL_RULES) {
    const [found] = await db.rows<{ rows: number | null; example: string | null }>(rule.sql);
    if (found?.rows) violations.push({ ...rule, rows: Number(found.rows), example: found.example ?? 'null' });
  }
  fail(violations);
  await checkExtent(db, inputs, expectations, extentFrom);
}

/** The first and last events of the inputs: balance timestamps, price and points days. */
interface Event {
  seconds: number;
  /** How the message shows it: the instant or the day, and where it comes from. */
  shown: string;
}

/**
 * The inputs as a whole. Refused unless allowed: no balance and no points row (the tree would
 * hold no wallet and no participant: an export that came out empty, not a programme's night), and
 * a build instant before every event (a tree of none of them: `--now 0025-...` for 2025) or more
 * than DISTANT_NOW_DAYS after the last (every wallet's daily history runs on to it: a century on
 * made the sample's 7 MiB tree 620 MiB). When --now is not given, the instant is the clock, never
 * a typo, and the bundled sample only grows older: only the first of the two applies.
 */
async function checkExtent(db: Database, inputs: InputFile[], expectations: InputExpectations, extentFrom: ExtentSource): Promise<void> {
  // docs/input.md, "Refused before the build": the events' extent, over the checked values. A day
  // counts from its start in New York, the zone every day of the input is in. The balances are
  // read from the file, not from `balance_rows`, which a shard's build cuts to its own wallets:
  // every shard of one export must refuse it, or none. A night's digests cover every row of the
  // file (build/compute/input-days.ts), so prepare reads the extent there, without a scan.
  const balances = inputs.find((input) => input.contract.table === 'balances')!;
  const timestamp = balances.columns.find((column) => column.contract.name === 'timestamp')!;
  const [extent] = await db.rows<{
    balance_rows: number;
    first_timestamp: number | null;
    last_timestamp: number | null;
    first_price: string | null;
    last_price: string | null;
    points_rows: number;
    first_points: string | null;
    last_points: string | null;
  }>(
    extentFrom === 'input_days'
      ? `SELECT b.*, p.* FROM (${EXTENT_OF_INPUT_DAYS_SQL}) b,
           (SELECT min(date)::VARCHAR AS first_price, max(date)::VARCHAR AS last_price FROM prices) p`
      : `
    SELECT b.*, p.*, q.* FROM
      (SELECT count(*)::DOUBLE AS balance_rows, min(ts)::DOUBLE AS first_timestamp, max(ts)::DOUBLE AS last_timestamp
       FROM (SELECT ${timestamp.value} AS ts FROM ${balances.view})) b,
      (SELECT min(date)::VARCHAR AS first_price, max(date)::VARCHAR AS last_price FROM prices) p,
      (SELECT count(*)::DOUBLE AS points_rows, min(date)::VARCHAR AS first_points, max(date)::VARCHAR AS last_points FROM points) q`,
  );
  const found = extent!;
  if (found.balance_rows === 0 && found.points_rows === 0 && !expectations.allowEmpty) {
    const empty: string[] = [];
    for (const input of inputs) {
      const [row] = await db.rows<{ n: number }>(`SELECT count(*)::DOUBLE AS n FROM ${input.view}`);
      if (row!.n === 0) empty.push(input.contract.file);
    }
    const which =
      empty.length === inputs.length ? `all seven exports have zero rows (${empty.join(', ')})` : `${empty.join(', ')} have zero rows`;
    throw new UserError(
      `${which}: the tree would hold no wallet and no participant, and publishing it would empty every answer; check the export, or give --allow-empty to build it anyway`,
    );
  }
  const events: Event[] = [];
  const instant = (seconds: number) => DateTime.fromSeconds(seconds, { zone: 'utc' }).toISO({ suppressMilliseconds: true })!;
  const day = (date: string) => newYorkDayStart(dayNumber(date));
  if (found.first_timestamp !== null && found.last_timestamp !== null) {
    events.push({ seconds: found.first_timestamp, shown: `${instant(found.first_timestamp)} (a timestamp in balances.parquet)` });
    events.push({ seconds: found.last_timestamp, shown: `${instant(found.last_timestamp)} (a timestamp in balances.parquet)` });
  }
  for (const [file, first, last] of [
    ['prices.parquet', found.first_price, found.last_price],
    ['points.parquet', found.first_points, found.last_points],
  ] as const) {
    if (first !== null) events.push({ seconds: day(first), shown: `${first} (a date in ${file})` });
    if (last !== null) events.push({ seconds: day(last), shown: `${last} (a date in ${file})` });
  }
  if (events.length === 0 || expectations.allowDistantNow) return;
  const earliest = events.reduce((a, b) => (b.seconds < a.seconds ? b : a));
  const latest = events.reduce((a, b) => (b.seconds > a.seconds ? b : a));
  const given = expectations.nowOption !== null;
  const now = given
    ? `--now "${expectations.nowOption}"`
    : `the build instant ${expectations.nowIso} (the current time: no --now was given)`;
  const anyway = 'give --allow-distant-now to build it anyway';
  if (expectations.nowSeconds < earliest.seconds) {
    const span = earliest.seconds === latest.seconds ? `all at ${earliest.shown}` : `which run from ${earliest.shown} to ${latest.shown}`;
    throw new UserError(
      `${now} is before every event in the inputs, ${span}: the tree would show none of them (${given ? 'a typo in the year?' : 'is the clock right?'}); ${anyway}`,
    );
  }
  const daysAfter = Math.floor((expectations.nowSeconds - latest.seconds) / 86_400);
  if (given && daysAfter > DISTANT_NOW_DAYS) {
    throw new UserError(
      `${now} is ${daysAfter} days after the latest event in the inputs, ${latest.shown}: a --now more than ${DISTANT_NOW_DAYS} days after it is refused, as every wallet's daily history would run on to it (a typo in the year?); ${anyway}`,
    );
  }
}

function fail(violations: Violation[]): void {
  if (violations.length === 0) return;
  throw new UserError(
    `the input breaks the export contract (see docs/input.md):\n${violations.map((v) => `  - ${formatViolation(v)}`).join('\n')}`,
  );
}

/**
 * Per column, the count of bad values and the smallest one: one pass over each file for most
 * columns; address columns are checked over their distinct values (with each value's row count),
 * because a wallet appears in thousands of rows and the pattern is the costly part. With
 * `scope.digest` (every file but the balances), one scan counts, groups the addresses and digests
 * the rows (countAndDigest).
 */
async function checkValues(db: Database, input: InputFile, scope: ValueCheckScope): Promise<Violation[]> {
  const perValue = input.columns.filter((column) => column.contract.kind === 'address');
  const perRow = input.columns.filter((column) => !perValue.includes(column));
  // The rows the rules read: every row, or an incremental night's days.
  const rows = scope.fromDay !== null && isDated(input) ? fromDaySql(input, scope.fromDay) : 'true';
  const found: { column: ColumnReader; rows: number; example: unknown }[] = [];
  try {
    const bad =
      scope.digest && input.contract.table !== 'balances'
        ? await countAndDigest(db, input, perRow, perValue)
        : await countBad(db, input, perRow, rows);
    const failing = perRow.filter((_, i) => bad[i]! > 0);
    // The examples only for the columns with violations: rendering every value as text for min()
    // costs more than the checks themselves.
    const examples = new Map<ColumnReader, unknown>();
    if (failing.length > 0) {
      const [row] = (await db.rows(
        `SELECT ${failing.map((column, i) => `min(${column.shown}) FILTER (WHERE ${column.violation}) AS example_${i}`).join(', ')} FROM ${input.view} WHERE ${rows}`,
      )) as [Record<string, unknown>];
      failing.forEach((column, i) => examples.set(column, row[`example_${i}`]));
    }
    perRow.forEach((column, i) => found.push({ column, rows: bad[i]!, example: examples.get(column) }));
    for (const column of perValue) {
      const name = `"${column.contract.name}"`;
      // Kept as a table: the addresses are numbered from these values (load.ts). countAndDigest made it already.
      const values = distinctValuesTable(input, column);
      const timestamp = input.columns.find((candidate) => candidate.contract.name === 'timestamp');
      const firstAt =
        scope.firstSeconds && timestamp ? `, min(CASE WHEN ${timestamp.violation} THEN NULL ELSE ${timestamp.value} END) AS first_at` : '';
      if (!(scope.digest && input.contract.table !== 'balances'))
        await db.run(`CREATE TABLE ${values} AS SELECT ${name}, count(*) AS n${firstAt} FROM ${input.view} WHERE ${rows} GROUP BY ${name}`);
      const [result] = await db.rows<{ bad: number | null; example: unknown }>(`
        SELECT CAST(sum(n) FILTER (WHERE ${column.violation}) AS DOUBLE) AS bad, min(${column.shown}) FILTER (WHERE ${column.violation}) AS example
        FROM ${values}`);
      found.push({ column, rows: Number(result?.bad ?? 0), example: result?.example });
    }
  } catch (error) {
    throw scanError(input, error);
  }
  // Reported in the file's column order.
  return input.columns.flatMap((column) => {
    const { rows, example } = found.find((entry) => entry.column === column)!;
    if (!rows) return [];
    return [
      {
        file: input.contract.file,
        column: column.contract.name,
        rows,
        problem: `a value that is not ${column.contract.expected} (column type ${column.sourceType})`,
        example: JSON.stringify(example),
      },
    ];
  });
}

/**
 * The bad values of each column of `perRow` among the rows `rows` selects: one count per column, as
 * a WHERE rather than a FILTER of one shared aggregate: DuckDB then skips the row groups whose
 * Parquet statistics (null counts, min and max, dictionary) rule a violation out without reading
 * their values, which leaves nearly all the time to the one check that needs every value (the
 * balance's digits; figures in bench/LOG.md).
 */
async function countBad(db: Database, input: InputFile, perRow: ColumnReader[], rows: string): Promise<number[]> {
  const bad: number[] = [];
  for (const column of perRow) {
    const [row] = await db.rows<{ bad: number }>(`SELECT count(*)::DOUBLE AS bad FROM ${input.view} WHERE ${rows} AND ${column.violation}`);
    bad.push(row!.bad);
  }
  return bad;
}

/**
 * A full night's one scan of a file (every row): the bad values of each column of `perRow`
 * counted, the distinct values of each address column grouped (its table, as checkValues keeps
 * it), and every row hashed per day into `input_days` (build/compute/input-days.ts). The digest
 * reads every value of every column anyway, so the counts cost no read of their own.
 */
async function countAndDigest(db: Database, input: InputFile, perRow: ColumnReader[], perValue: ColumnReader[]): Promise<number[]> {
  const scan = `scan_${input.contract.table}`;
  const unit = unitSql(input) ?? 'NULL::BIGINT';
  const timestamp = input.columns.find((column) => column.contract.name === 'timestamp');
  const at =
    input.contract.table === 'balances' && timestamp ? `CASE WHEN ${timestamp.violation} THEN NULL ELSE ${timestamp.value} END` : null;
  const addresses = perValue.map((column, i) => ({ column, alias: `a${i}` }));
  const sets = ['(unit)', ...addresses.map(({ alias }) => `(${alias})`)].join(', ');
  await db.run(`
    CREATE TEMPORARY TABLE ${scan} AS
    SELECT grouping(unit) = 0 AS by_unit, unit, ${addresses.map(({ alias }) => `${alias}, grouping(${alias}) = 0 AS by_${alias}`).join(', ')}${addresses.length > 0 ? ',' : ''}
           ${unitAggregatesSql('h', at === null ? null : 'at')},
           ${perRow.map((_, i) => `count(*) FILTER (WHERE bad_${i})::DOUBLE AS bad_${i}`).join(', ')}
    FROM (
      SELECT ${unit} AS unit, ${rowHashSql(input)} AS h, ${at ?? 'NULL::BIGINT'} AS at,
             ${addresses.map(({ column, alias }) => `"${column.contract.name}" AS ${alias}`).join(', ')}${addresses.length > 0 ? ',' : ''}
             ${perRow.map((column, i) => `${column.violation} AS bad_${i}`).join(', ')}
      FROM ${input.view})
    GROUP BY GROUPING SETS (${sets})`);
  await db.run(
    `INSERT INTO input_days ${inputDaysOfUnitsSql(input, `SELECT unit, rows, digest, first_at, last_at FROM ${scan} WHERE by_unit`)}`,
  );
  for (const { column, alias } of addresses) {
    await db.run(
      `CREATE TABLE ${distinctValuesTable(input, column)} AS SELECT ${alias} AS "${column.contract.name}", rows AS n FROM ${scan} WHERE by_${alias}`,
    );
  }
  const [row] = await db.rows<Record<string, number | null>>(
    `SELECT ${perRow.map((_, i) => `coalesce(sum(bad_${i}), 0)::DOUBLE AS bad_${i}`).join(', ')} FROM ${scan} WHERE by_unit`,
  );
  await db.run(`DROP TABLE ${scan}`);
  return perRow.map((_, i) => Number(row?.[`bad_${i}`] ?? 0));
}

/** The table of an address column's distinct values as written, each with its row count `n` (kept for the load stage). */
export const distinctValuesTable = (input: InputFile, column: ColumnReader) => `distinct_${input.contract.table}_${column.contract.name}`;

interface RelationalRule {
  file: string;
  column: string;
  problem: string;
  /** Returns one row: `rows` (how many rows break the rule) and `example`. */
  sql: string;
}

const keyConflict = (column: string, flag: string): RelationalRule => ({
  file: 'balances.parquet',
  column,
  problem: `a key (chain_id, block_number, log_index, address, token) repeated with a different ${column}`,
  sql: `
    SELECT sum(b.copies) AS rows,
           min(concat_ws(', ', b.chain_id, b.block_number, b.log_index, a.address, t.token)) AS example
    FROM repeated_balance_rows b
    JOIN addresses a ON a.id = b.account
    JOIN token_names t ON t.token_index = b.token_index
    WHERE b.${flag}`,
});

const RELATIONAL_RULES: RelationalRule[] = [
  keyConflict('balance', 'balance_conflict'),
  keyConflict('tx_hash', 'tx_hash_conflict'),
  keyConflict('timestamp', 'timestamp_conflict'),
  {
    file: 'balances.parquet',
    column: 'token',
    problem: 'a (chain_id, token) that has no row in tokens.parquet',
    sql: `
      SELECT count(*) AS rows, min(concat('chain ', b.chain_id, ' token ', n.token)) AS example
      FROM checked_balance_rows b
      JOIN token_names n ON n.token_index = b.token_index
      ANTI JOIN tokens t ON t.chain_id = b.chain_id AND t.token_index = b.token_index`,
  },
  {
    file: 'prices.parquet',
    column: 'token',
    problem: 'a (chain_id, token) that has no row in tokens.parquet',
    sql: `
      SELECT count(*) AS rows, min(concat('chain ', p.chain_id, ' token ', p.token)) AS example
      FROM prices p ANTI JOIN tokens t ON t.chain_id = p.chain_id AND t.token = p.token`,
  },
  {
    file: 'tokens.parquet',
    column: 'decimals',
    problem: 'a (chain_id, token) given more than one value of decimals',
    sql: `
      SELECT sum(n) AS rows, min(example) AS example FROM (
        SELECT count(*) AS n, concat('chain ', chain_id, ' token ', token, ': ', string_agg(decimals::VARCHAR, ' and ' ORDER BY decimals)) AS example
        FROM tokens GROUP BY chain_id, token HAVING count(*) > 1)`,
  },
  {
    file: 'prices.parquet',
    column: 'usd_price',
    problem: 'a (chain_id, token, date) given more than one price',
    sql: `
      SELECT sum(n) AS rows, min(example) AS example FROM (
        SELECT count(*) AS n, concat('chain ', chain_id, ' token ', token, ' on ', date, ': ', string_agg(usd_price::VARCHAR, ' and ' ORDER BY usd_price)) AS example
        FROM prices GROUP BY chain_id, token, date HAVING count(*) > 1)`,
  },
  {
    file: 'venue_b_accounts.parquet',
    column: 'owner',
    problem: 'a sub-account given more than one owner on one chain',
    sql: `
      SELECT sum(n) AS rows, min(example) AS example FROM (
        SELECT count(*) AS n, concat('account ', account, ' on chain ', chain_id, ': ', string_agg(owner, ' and ' ORDER BY owner)) AS example
        FROM venue_b_accounts GROUP BY chain_id, account HAVING count(*) > 1)`,
  },
  {
    file: 'venue_b_accounts.parquet',
    column: 'owner',
    problem: 'an owner that is itself a sub-account on that chain (nesting is not allowed)',
    sql: `
      SELECT count(*) AS rows, min(concat('owner ', o.owner, ' on chain ', o.chain_id)) AS example
      FROM venue_b_accounts o SEMI JOIN venue_b_accounts a ON a.chain_id = o.chain_id AND a.account_id = o.owner_id`,
  },
  {
    file: 'seasons.parquet',
    column: 'season',
    problem: 'a season that is repeated (one row per season)',
    sql: `
      SELECT sum(n) AS rows, min(season)::VARCHAR AS example FROM (
        SELECT season, count(*) AS n FROM seasons GROUP BY season HAVING count(*) > 1)`,
  },
  {
    file: 'points.parquet',
    column: 'season',
    problem: 'a season that has no row in seasons.parquet',
    sql: `SELECT count(*) AS rows, min(p.season)::VARCHAR AS example FROM points p ANTI JOIN seasons s ON s.season = p.season`,
  },
  {
    file: 'multipliers.parquet',
    column: 'season',
    problem: 'a season that has no row in seasons.parquet',
    sql: `SELECT count(*) AS rows, min(m.season)::VARCHAR AS example FROM multipliers m ANTI JOIN seasons s ON s.season = m.season`,
  },
  {
    file: 'multipliers.parquet',
    column: 'last_day',
    problem: 'a window that ends before it starts (first_day <= last_day is required)',
    sql: `SELECT count(*) AS rows, min(concat(position, ' ', first_day, ' > ', last_day)) AS example FROM multipliers WHERE first_day > last_day`,
  },
];
