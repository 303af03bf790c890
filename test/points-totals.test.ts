/**
 * The running totals an incremental night carries (build/compute/points-history.ts,
 * docs/incremental-nights.md): a night that starts each wallet-season's sums from the previous
 * night's exact total on its day A, reading only the rows of its new days, computes every day it
 * computes to the same doubles, and the same exact total, as the whole history summed again;
 * random rows of any magnitude the exact sums hold in SQL, zeros, letter cases, a season frozen
 * before the new days, a wallet whose new rows reach a lower bin than its old ones.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { computePointsHistory, POINTS_TOTALS_SQL } from '../build/compute/points-history.ts';
import { computeSeasonDays } from '../build/compute/leaderboards.ts';
import { dayNumber } from '../build/compute/days.ts';
import type { Database } from '../build/database.ts';
import { scratchDatabase } from './helpers/fixtures.ts';

const ADDRESSES = ['0xa', '0xb', '0xc', '0xd'].map((head) => `${head}${'1'.repeat(39)}`);
const DAYS = ['2025-11-01', '2025-11-02', '2025-11-03', '2025-11-04', '2025-11-05', '2025-11-06'];
/** The previous night's last closed day, and tonight's. */
const PREVIOUS_LAST = '2025-11-04';
const LAST = '2025-11-06';
/** Values over 15 binary orders of magnitude either side of 1 (a span the SQL sums hold), zeros and negatives, and 1e30 (beyond it). */
const VALUES = [0, 0.1, 0.25, 1, 2.5, 3.75, 100, -2, -0.5, 1e-5, 12345.678, 2 ** -14, 2 ** 14, 1e30];

interface PointsRow {
  season: number;
  date: string;
  address: string;
  points: number;
}

const rowArbitrary = fc.record({
  season: fc.constantFrom(1, 2),
  date: fc.constantFrom(...DAYS),
  address: fc.constantFrom(...ADDRESSES).chain((address) => fc.constantFrom(address, address.toUpperCase().replace('0X', '0x'))),
  points: fc.constantFrom(...VALUES),
});

async function setUp(db: Database, rows: PointsRow[]): Promise<void> {
  for (const table of ['points_rows', 'seasons']) await db.run(`DROP TABLE IF EXISTS ${table}`);
  await db.run('CREATE TABLE points_rows (season BIGINT, date DATE, address VARCHAR, points DOUBLE)');
  if (rows.length > 0)
    await db.run(
      `INSERT INTO points_rows VALUES ${rows.map((row) => `(${row.season}, DATE '${row.date}', '${row.address}', ${row.points})`).join(', ')}`,
    );
  // Season 1 frozen on 2025-11-03, before the new days; season 2 live.
  await db.run("CREATE TABLE seasons AS SELECT * FROM (VALUES (1::BIGINT, DATE '2025-11-03'), (2, NULL::DATE)) t(season, as_of)");
}

/** The points view of one night: every row, or the rows of day `from` on. */
async function pointsView(db: Database, from: string | null): Promise<void> {
  await db.run(
    `CREATE OR REPLACE VIEW points AS SELECT season, date, lower(address) AS address, points, address AS address_as_written FROM points_rows${from === null ? '' : ` WHERE date >= DATE '${from}'`}`,
  );
}

async function dropNight(db: Database): Promise<void> {
  for (const table of ['history_written', 'history_wallets', 'history_written_keys', 'history_totals', 'season_days'])
    await db.run(`DROP TABLE IF EXISTS ${table}`);
}

/** The days a night from day `from` computes (from each wallet-season's start day on), by address and season, with their sums. */
async function computedDays(db: Database, from: number): Promise<string[]> {
  const rows = await db.rows<{ line: string }>(`
    SELECT concat_ws(' ', w.address, w.season, t.day, t.points, t.total_points, coalesce(t.exact_total::VARCHAR, '-')) AS line
    FROM history_totals t JOIN history_wallets w ON w.wallet = t.wallet
    WHERE t.day >= least(greatest(w.first_day, ${from}), w.last_day) ORDER BY line`);
  return rows.map((row) => row.line);
}

test('a night summed from the carried totals computes its days as the whole history does', async () => {
  const db = await scratchDatabase({ threads: 1 });
  try {
    await fc.assert(
      fc.asyncProperty(fc.array(rowArbitrary, { minLength: 1, maxLength: 40 }), async (rows) => {
        // The previous night: the rows up to its last day, summed whole; what it carries.
        const before = rows.filter((row) => row.date <= PREVIOUS_LAST);
        await setUp(db, before);
        await dropNight(db);
        await pointsView(db, null);
        await computeSeasonDays(db, PREVIOUS_LAST);
        assert.ok(await computePointsHistory(db));
        const previousDays = Object.fromEntries(
          (
            await db.rows<{ season: number; day: number | null }>(
              `SELECT season::INTEGER AS season, (day - DATE '1970-01-01')::INTEGER AS day FROM season_days`,
            )
          ).map((row) => [String(row.season), row.day]),
        );
        await db.run(`CREATE OR REPLACE TABLE carried AS ${POINTS_TOTALS_SQL}`);
        await db.run('CREATE OR REPLACE TABLE previous_keys AS SELECT address, season, wallet AS key FROM history_wallets');
        const [{ next } = { next: 1 }] = await db.rows<{ next: number }>(
          'SELECT coalesce(max(wallet), 0)::INTEGER + 1 AS next FROM history_wallets',
        );

        // Tonight, the whole history summed.
        const from = dayNumber('2025-11-05');
        await setUp(db, rows);
        await dropNight(db);
        await pointsView(db, null);
        await computeSeasonDays(db, LAST);
        assert.ok(await computePointsHistory(db));
        const whole = await computedDays(db, from);

        // Tonight, from the carried totals, reading the new days' rows only.
        await dropNight(db);
        await pointsView(db, '2025-11-05');
        await computeSeasonDays(db, LAST, previousDays);
        const computed = await computePointsHistory(db, {
          from,
          previousKeys: 'previous_keys',
          nextKey: next,
          carried: 'SELECT * FROM carried',
        });
        if (!computed) {
          // Only a wallet-season whose sums leave SQL (or were summed in JS the night before) refuses to carry.
          const [{ wide } = { wide: 0 }] = await db.rows<{ wide: number }>(
            'SELECT count(*)::INTEGER AS wide FROM carried WHERE exact_total IS NULL',
          );
          await dropNight(db);
          await pointsView(db, null);
          await computeSeasonDays(db, LAST);
          await computePointsHistory(db);
          const [{ unfit } = { unfit: 0 }] = await db.rows<{ unfit: number }>(
            'SELECT count(*)::INTEGER AS unfit FROM history_wallets WHERE NOT fits',
          );
          assert.ok(wide + unfit > 0, 'carried totals were refused without a wallet-season summed in JS');
          return;
        }
        assert.equal(await computedDays(db, from), whole);
      }),
      { numRuns: 12, seed: 59 },
    );
  } finally {
    db.close();
  }
});

test('a wallet whose new rows reach a lower bin: its carried total is rescaled exactly', async () => {
  const db = await scratchDatabase({ threads: 1 });
  try {
    const address = ADDRESSES[0]!;
    const rows: PointsRow[] = [
      { season: 2, date: '2025-11-01', address, points: 3.75 },
      { season: 2, date: '2025-11-02', address, points: 100 },
      { season: 2, date: '2025-11-05', address, points: 2 ** -14 },
      { season: 2, date: '2025-11-06', address, points: 0 },
    ];
    await setUp(db, rows.slice(0, 2));
    await pointsView(db, null);
    await computeSeasonDays(db, PREVIOUS_LAST);
    await computePointsHistory(db);
    await db.run(`CREATE TABLE carried AS ${POINTS_TOTALS_SQL}`);
    const [carried] = await db.rows<{ min_bin: number }>('SELECT min_bin FROM carried');
    await db.run('CREATE TABLE previous_keys AS SELECT address, season, wallet AS key FROM history_wallets');
    await setUp(db, rows);
    await dropNight(db);
    await pointsView(db, '2025-11-05');
    await computeSeasonDays(db, LAST, { 1: null, 2: dayNumber('2025-11-02') });
    assert.ok(
      await computePointsHistory(db, {
        from: dayNumber('2025-11-05'),
        previousKeys: 'previous_keys',
        nextKey: 2,
        carried: 'SELECT * FROM carried',
      }),
    );
    const [tonight] = await db.rows<{ lowest_bin: number }>('SELECT lowest_bin FROM history_wallets');
    assert.ok(tonight!.lowest_bin < carried!.min_bin, `bins ${tonight!.lowest_bin} and ${carried!.min_bin}`);
    const totals = await db.rows<{ day: number; total_points: number }>('SELECT day, total_points FROM history_totals ORDER BY day');
    assert.equal(
      totals.map((row) => row.total_points),
      [103.75 + 2 ** -14, 103.75 + 2 ** -14],
    );
  } finally {
    db.close();
  }
});

test.run();
