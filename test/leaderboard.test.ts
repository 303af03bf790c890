/** The leaderboard: GET /v1/leaderboard/s{N} (now pinned: L = 2025-11-20). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { A, B, C, build, thrown } from './helpers/fixtures.ts';
import { LeaderboardSchema } from '../schemas/leaderboard.ts';

const D = `0x${'d'.repeat(40)}`;
const E = `0x${'e'.repeat(40)}`;
const board = (season: number) => `v1/leaderboard/s${season}.json`;

test('competition ranks, ties ordered by address, dailyRate on A, multipliers by position then firstDay', async () => {
  const built = await build({
    seasons: [{ season: 2, as_of: null }],
    points: [
      { season: 2, date: '2025-11-10', address: D, points: 50 },
      { season: 2, date: '2025-11-19', address: B, points: 30 },
      { season: 2, date: '2025-11-19', address: C.toUpperCase().replace('0X', '0x'), points: 10 },
      { season: 2, date: '2025-11-19', address: C, points: 20 },
      { season: 2, date: '2025-11-18', address: A, points: 5 },
      { season: 2, date: '2025-11-19', address: E, points: 5 },
      { season: 2, date: '2025-11-21', address: E, points: 1000 },
    ],
    multipliers: [
      { season: 2, position: 'lend_venue_b', multiplier: 3, first_day: '2025-11-01', last_day: '2025-11-30' },
      { season: 2, position: 'hold_uty', multiplier: 1.5, first_day: '2025-11-15', last_day: '2025-11-30' },
      { season: 2, position: 'hold_uty', multiplier: 1.2, first_day: '2025-11-01', last_day: '2025-11-14' },
    ],
  });
  const document = built.json(board(2));
  LeaderboardSchema.parse(document);
  assert.equal(document, {
    season: 2,
    asOf: '2025-11-19',
    totalParticipants: 5,
    multipliers: [
      { position: 'hold_uty', multiplier: 1.2, firstDay: '2025-11-01', lastDay: '2025-11-14' },
      { position: 'hold_uty', multiplier: 1.5, firstDay: '2025-11-15', lastDay: '2025-11-30' },
      { position: 'lend_venue_b', multiplier: 3, firstDay: '2025-11-01', lastDay: '2025-11-30' },
    ],
    entries: [
      { rank: 1, user: D, totalPoints: 50, dailyRate: 0 },
      { rank: 2, user: B, totalPoints: 30, dailyRate: 30 },
      { rank: 2, user: C, totalPoints: 30, dailyRate: 30 },
      { rank: 4, user: A, totalPoints: 5, dailyRate: 0 },
      { rank: 4, user: E, totalPoints: 5, dailyRate: 5 },
    ],
  });
});

test('totalPoints and dailyRate are the exact sum rounded once, whatever the row order (math.fsum)', async () => {
  const F = `0x${'f'.repeat(40)}`;
  const G = `0x${'1'.repeat(40)}`;
  const H = `0x${'2'.repeat(40)}`;
  const row = (address: string, date: string, points: number) => ({ season: 1, date, address, points });
  const built = await build({
    seasons: [{ season: 1, as_of: null }],
    points: [
      // The same three values in opposite orders: added left to right they differ in the last bit.
      row(A, '2025-11-01', 0.1),
      row(A, '2025-11-01', 0.2),
      row(A, '2025-11-01', 0.3),
      row(B, '2025-11-01', 0.3),
      row(B, '2025-11-01', 0.2),
      row(B, '2025-11-01', 0.1),
      // Cancellation that compensated summation can lose, and ten tenths.
      row(C, '2025-11-02', 1e20),
      row(C, '2025-11-03', 1),
      row(C, '2025-11-04', -1e20),
      ...Array.from({ length: 10 }, () => row(D, '2025-11-05', 0.1)),
      // Just above a tie (1 + 2^-53 alone rounds to even, down to 1), and a sum spanning 600 binades.
      row(E, '2025-11-06', 1),
      row(E, '2025-11-06', 2 ** -53),
      row(E, '2025-11-06', 2 ** -80),
      row(F, '2025-11-07', 1e300),
      row(F, '2025-11-07', 1e-300),
      // Subnormal values, and the day A itself: three tenths on 2025-11-19.
      row(G, '2025-11-08', 5e-324),
      row(G, '2025-11-08', 5e-324),
      row(H, '2025-11-19', 0.1),
      row(H, '2025-11-19', 0.1),
      row(H, '2025-11-19', 0.1),
    ],
  });
  assert.equal(built.json(board(1)).entries, [
    { rank: 1, user: F, totalPoints: 1e300, dailyRate: 0 },
    { rank: 2, user: E, totalPoints: 1.0000000000000002, dailyRate: 0 },
    { rank: 3, user: C, totalPoints: 1, dailyRate: 0 },
    { rank: 3, user: D, totalPoints: 1, dailyRate: 0 },
    { rank: 5, user: A, totalPoints: 0.6, dailyRate: 0 },
    { rank: 5, user: B, totalPoints: 0.6, dailyRate: 0 },
    { rank: 7, user: H, totalPoints: 0.30000000000000004, dailyRate: 0.30000000000000004 },
    { rank: 8, user: G, totalPoints: 1e-323, dailyRate: 0 },
  ]);
});

test('a day of -0 points is written 0 in the leaderboard, the points file and the history, never "-0"', async () => {
  const built = await build({
    seasons: [{ season: 1, as_of: null }],
    points: [
      { season: 1, date: '2025-11-19', address: A, points: 4 },
      { season: 1, date: '2025-11-20', address: A, points: -0 },
    ],
  });
  const texts = [board(1), `v1/address/${A}/points.json`, `v1/address/${A}/points/history.json`].map((file) => built.text(file));
  // A number written "-0" would follow a ':' or ',' or '[' (dates and addresses hold no such text).
  for (const text of texts) assert.not.match(text, /[:,[]-0[,\]}]/);
  assert.match(texts[0]!, `{"rank":1,"user":"${A}","totalPoints":4,"dailyRate":0}`);
  assert.match(texts[1]!, '"totalPoints":4,"dailyRate":0');
  assert.match(texts[2]!, '{"date":"2025-11-20","points":0,"totalPoints":4,"rank":1}');
});

test('points adding up beyond the largest double fail the build with a clear message', async () => {
  const error = await thrown(() =>
    build({
      seasons: [{ season: 1, as_of: null }],
      points: [
        { season: 1, date: '2025-11-01', address: A, points: 1e308 },
        { season: 1, date: '2025-11-02', address: A, points: 1e308 },
      ],
    }),
  );
  assert.is(error.name, 'UserError');
  assert.match(error.message, 'points.parquet: column "points": a wallet\'s points in one season add up beyond the largest JSON number');
});

test('at most 100 entries; totalParticipants counts every wallet with points > 0', async () => {
  const points = Array.from({ length: 105 }, (_, i) => ({
    season: 1,
    date: '2025-11-01',
    address: `0x${i.toString(16).padStart(40, '0')}`,
    points: 1000 - i,
  }));
  points.push({ season: 1, date: '2025-11-01', address: A, points: 0 });
  points.push({ season: 1, date: '2025-11-01', address: B, points: -3 });
  const built = await build({ seasons: [{ season: 1, as_of: null }], points });
  const document = built.json(board(1));
  assert.is(document.totalParticipants, 105);
  assert.is(document.entries.length, 100);
  assert.equal(document.entries[99], { rank: 100, user: `0x${(99).toString(16).padStart(40, '0')}`, totalPoints: 901, dailyRate: 901 });
});

test('every participant counts, however many: 250,000 wallets in one season', async () => {
  // The totals are appended to a table while the sums stream out of DuckDB; on one connection,
  // the appender's first flush (some 200,000 rows in) ended the stream early and the rest of the
  // participants silently had no totals.
  const points = `SELECT 1 AS season, DATE '2025-11-20' AS date, printf('0x%040x', i) AS address, (i % 1000 + 1)::DOUBLE AS points
                  FROM range(250000) r(i)`;
  // One shard of 1,024: the leaderboard is the whole season's in every shard, and only some 250
  // points files (of 250,000) are written, which keeps the test fast.
  const built = await build({ seasons: [{ season: 1, as_of: null }] }, { generated: { points }, shard: '1/1024' });
  const document = built.json(board(1));
  assert.is(document.totalParticipants, 250_000);
  // 250 wallets share the top total (i % 1000 = 999), all ranked 1, in address order.
  assert.is(document.entries.length, 100);
  assert.equal(document.entries[0], { rank: 1, user: `0x${(999).toString(16).padStart(40, '0')}`, totalPoints: 1000, dailyRate: 1000 });
  assert.equal(document.entries[99], { rank: 1, user: `0x${(99_999).toString(16).padStart(40, '0')}`, totalPoints: 1000, dailyRate: 1000 });
});

test('a frozen season counts points up to as_of, and asOf is as_of even without points that day', async () => {
  const built = await build({
    seasons: [{ season: 1, as_of: '2025-11-05' }],
    points: [
      { season: 1, date: '2025-11-03', address: A, points: 7 },
      { season: 1, date: '2025-11-06', address: A, points: 100 },
      { season: 1, date: '2025-11-06', address: B, points: 100 },
    ],
  });
  assert.equal(built.json(board(1)), {
    season: 1,
    asOf: '2025-11-05',
    totalParticipants: 1,
    multipliers: [],
    entries: [{ rank: 1, user: A, totalPoints: 7, dailyRate: 0 }],
  });
});

test('a frozen season whose as_of is after L is cut at L', async () => {
  const built = await build({
    seasons: [{ season: 3, as_of: '2025-12-31' }],
    points: [
      { season: 3, date: '2025-11-18', address: A, points: 1 },
      { season: 3, date: '2025-11-21', address: A, points: 100 },
    ],
  });
  const document = built.json(board(3));
  assert.is(document.asOf, '2025-11-20');
  assert.equal(document.entries, [{ rank: 1, user: A, totalPoints: 1, dailyRate: 0 }]);
});

test('a known season with no points on or before its cut-off answers asOf null and no entries', async () => {
  const built = await build({
    seasons: [{ season: 4, as_of: null }],
    points: [{ season: 4, date: '2025-11-21', address: A, points: 5 }],
    multipliers: [{ season: 4, position: 'hold_uty', multiplier: 2, first_day: '2025-12-01', last_day: '2025-12-31' }],
  });
  assert.equal(built.json(board(4)), {
    season: 4,
    asOf: null,
    totalParticipants: 0,
    multipliers: [{ position: 'hold_uty', multiplier: 2, firstDay: '2025-12-01', lastDay: '2025-12-31' }],
    entries: [],
  });
});

test('rows repeating (season, date, address) add up; seasons are separate; unknown seasons have no file', async () => {
  const built = await build({
    seasons: [
      { season: 1, as_of: null },
      { season: 2, as_of: null },
    ],
    points: [
      { season: 1, date: '2025-11-20', address: A, points: 1.25 },
      { season: 1, date: '2025-11-20', address: A, points: 2.5 },
      { season: 2, date: '2025-11-20', address: A, points: 9 },
    ],
  });
  assert.equal(built.json(board(1)).entries, [{ rank: 1, user: A, totalPoints: 3.75, dailyRate: 3.75 }]);
  assert.equal(built.json(board(2)).entries, [{ rank: 1, user: A, totalPoints: 9, dailyRate: 9 }]);
  assert.not.ok(built.exists(board(3)));
  assert.equal(built.json('_snapshot/meta.json').seasons, [1, 2]);
});

test.run();
