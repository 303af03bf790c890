/**
 * Leaderboards, points standings and the seasons index against a second, deliberately naive
 * implementation: random seeded points (fractions, negatives, zeros, tiny and huge values, rows
 * repeating (season, date, address), addresses in mixed case, rows after the cut-off), frozen and
 * live seasons, seasons without a day; every season's leaderboard, every participant's points
 * standing (its file's exact text) and the seasons index must match exactly. The reference sums
 * with BigInt over every double's exact value and rounds once through decimal text, independently
 * of build/compute/exact-sum.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { build, type Row } from './helpers/fixtures.ts';
import { seededRandom as random } from '../core/seeded-random.ts';

const LAST_DAY = '2025-11-20';
const LEADERBOARD_SIZE = 100;

const VALUES = [1, 2, 5, 10, 100, 0, -3, 0.1, 0.2, 0.3, 1 / 3, 2.5, 1e-9, 2 ** -60, 1e15, 123456.789, -0.1, 7e22];

/** The same rows for the two wallets of a pair. */
function pairRows(seed: number, pair: number) {
  const next = random(seed * 100 + pair);
  return Array.from({ length: 3 }, () => ({ season: 2, offset: Math.floor(next() * 28), value: VALUES[Math.floor(next() * 6)]! }));
}

function dataset(seed: number) {
  const next = random(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
  const day = (offset: number) => new Date(Date.parse('2025-10-25T00:00:00Z') + offset * 86_400_000).toISOString().slice(0, 10);
  const seasons: Row[] = [
    { season: 1, as_of: pick(['2025-11-05', '2025-11-24', '2025-11-12']) },
    { season: 2, as_of: null },
    { season: 3, as_of: null },
    // Frozen before any of its points: no day.
    { season: 4, as_of: '2025-10-01' },
    { season: 5, as_of: null },
  ];
  const points: Row[] = [];
  // 170 wallets, so that the 100-entry cut falls among participants; the first ten share rows
  // two by two, so that their totals tie exactly.
  for (let w = 0; w < 170; w++) {
    const address = `0x${(0xabc000 + w).toString(16).padStart(40, '0')}`;
    const rows =
      w < 10
        ? pairRows(seed, Math.floor(w / 2))
        : Array.from({ length: 1 + Math.floor(next() * 6) }, () => ({
            season: pick([1, 1, 2, 2, 2, 4]),
            offset: Math.floor(next() * 30),
            value: pick(VALUES),
          }));
    for (const row of rows) {
      points.push({
        season: row.season,
        date: day(row.offset),
        address: next() < 0.2 ? address.toUpperCase().replace('0X', '0x') : address,
        points: row.value,
      });
    }
  }
  // Season 3 is live and its latest points before the cut-off are days before L (and some after
  // it); season 5 has points only after L, so it has no day either.
  for (let k = 0; k < 12; k++) {
    points.push({
      season: 3,
      date: day(15 + Math.floor(next() * 10)),
      address: `0x${(0xabc000 + k).toString(16).padStart(40, '0')}`,
      points: pick(VALUES),
    });
  }
  points.push({ season: 3, date: '2025-11-22', address: `0x${'3'.repeat(40)}`, points: 9 });
  points.push({ season: 5, date: '2025-11-21', address: `0x${'5'.repeat(40)}`, points: 9 });
  const multipliers: Row[] = [];
  for (const season of [1, 2]) {
    for (let k = 0; k < 4; k++) {
      multipliers.push({
        season,
        position: pick(['hold_uty', 'lend_venue_b', 'lp_venue_a']),
        multiplier: 1 + k / 4,
        first_day: day(k * 7),
        last_day: day(k * 7 + 6),
      });
    }
  }
  return { seasons, points, multipliers };
}
/** A double's exact value, as an integer count of 2^-1074. */
function exactUnits(value: number): bigint {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  const bits = view.getBigUint64(0);
  const exponent = Number((bits >> 52n) & 0x7ffn);
  const mantissa = bits & ((1n << 52n) - 1n);
  const units = exponent === 0 ? mantissa : (mantissa | (1n << 52n)) << BigInt(exponent - 1);
  return bits >> 63n ? -units : units;
}

/** The double nearest the exact sum (decimal text, which Number() rounds once, ties to even). */
function exactSum(values: number[]): number {
  const total = values.reduce((sum, value) => sum + exactUnits(value), 0n);
  const negative = total < 0n;
  const digits = ((negative ? -total : total) * 5n ** 1074n).toString().padStart(1075, '0');
  return Number(`${negative ? '-' : ''}${digits.slice(0, -1074)}.${digits.slice(-1074)}`);
}

function referenceBoard(data: ReturnType<typeof dataset>, season: number) {
  const asOf = data.seasons.find((row) => row.season === season)!.as_of as string | null;
  const cutoff = asOf !== null && asOf < LAST_DAY ? asOf : LAST_DAY;
  const rows = data.points.filter((row) => row.season === season && (row.date as string) <= cutoff);
  const day =
    rows.length === 0
      ? null
      : asOf !== null
        ? cutoff
        : rows
            .map((row) => row.date as string)
            .sort()
            .at(-1)!;
  const multipliers = data.multipliers
    .filter((row) => row.season === season)
    .map((row) => ({
      position: row.position as string,
      multiplier: row.multiplier as number,
      firstDay: row.first_day as string,
      lastDay: row.last_day as string,
    }))
    .sort((a, b) =>
      a.position < b.position ? -1 : a.position > b.position ? 1 : a.firstDay < b.firstDay ? -1 : a.firstDay > b.firstDay ? 1 : 0,
    );
  if (day === null) return { season, asOf: null, totalParticipants: 0, multipliers, entries: [], participants: [] };
  const wallets = new Map<string, { all: number[]; onDay: number[] }>();
  for (const row of rows) {
    if ((row.date as string) > day) continue;
    const user = (row.address as string).toLowerCase();
    const wallet = wallets.get(user) ?? { all: [], onDay: [] };
    wallet.all.push(row.points as number);
    if (row.date === day) wallet.onDay.push(row.points as number);
    wallets.set(user, wallet);
  }
  const participants = [...wallets]
    .map(([user, wallet]) => ({ user, totalPoints: exactSum(wallet.all), dailyRate: exactSum(wallet.onDay) }))
    .filter((wallet) => wallet.totalPoints > 0)
    .sort((a, b) => b.totalPoints - a.totalPoints || (a.user < b.user ? -1 : 1))
    .map((wallet, _, all) => ({ rank: 1 + all.filter((other) => other.totalPoints > wallet.totalPoints).length, ...wallet }));
  const entries = participants.slice(0, LEADERBOARD_SIZE);
  return { season, asOf: day, totalParticipants: participants.length, multipliers, entries, participants };
}

/** Points standings: per participant of any season, its rows by season, as the leaderboards' reference has them. */
function referenceStandings(data: ReturnType<typeof dataset>, seasons: number[]) {
  const standings = new Map<string, object[]>();
  for (const season of seasons) {
    const board = referenceBoard(data, season);
    for (const { user, rank, totalPoints, dailyRate } of board.participants) {
      const rows = standings.get(user) ?? [];
      rows.push({ season, asOf: board.asOf, rank, totalPoints, dailyRate, totalParticipants: board.totalParticipants });
      standings.set(user, rows);
    }
  }
  return standings;
}

test('the reference rounds exact sums once', () => {
  assert.is(exactSum([0.1, 0.2]), 0.30000000000000004);
  assert.is(exactSum([1e16, 1, 1]), 10000000000000002);
  assert.is(exactSum([2 ** 53, 1]), 2 ** 53);
  assert.is(exactSum([2 ** 53, 1, 2 ** -60]), 2 ** 53 + 2);
  assert.is(exactSum([-0.1, 0.1]), 0);
  assert.is(exactSum([2 ** -1074, 2 ** -1074]), 2 ** -1073);
});

for (const seed of [1, 2, 3, 4]) {
  test(`seed ${seed}: every season's leaderboard equals the reference`, async () => {
    const data = dataset(seed);
    const built = await build(data);
    for (const season of [1, 2, 3, 4, 5]) {
      const { participants, ...expected } = referenceBoard(data, season);
      assert.equal(built.json(`v1/leaderboard/s${season}.json`), expected, `season ${season}`);
    }
    // Every participant's standing: one file each, its text exactly the reference's JSON.
    const standings = referenceStandings(data, [1, 2, 3, 4, 5]);
    const folders = fs.readdirSync(path.join(built.out, 'v1/address'));
    assert.equal(folders.filter((address) => built.exists(`v1/address/${address}/points.json`)).sort(), [...standings.keys()].sort());
    for (const [user, seasons] of standings) {
      assert.is(fs.readFileSync(path.join(built.out, `v1/address/${user}/points.json`), 'utf8'), JSON.stringify({ seasons }), user);
    }
    assert.ok(
      [...standings.values()].some((rows) => rows.length > 1),
      'a wallet in several seasons',
    );
    assert.ok(
      [...standings.values()].some((rows) => rows.some((row) => (row as { rank: number }).rank > LEADERBOARD_SIZE)),
      'a rank beyond the first 100',
    );
    assert.equal(built.json('v1/seasons.json'), {
      seasons: data.seasons.map((row) => {
        const board = referenceBoard(data, row.season as number);
        return { season: row.season, asOf: board.asOf, frozen: row.as_of !== null, totalParticipants: board.totalParticipants };
      }),
    });
    // The dataset reaches what it is for: the 100-entry cut, ties, a live season whose day is
    // before L, seasons without a day.
    const live = referenceBoard(data, 2);
    assert.ok(live.totalParticipants > LEADERBOARD_SIZE, `${live.totalParticipants} participants`);
    assert.ok(
      live.entries.some((entry, i) => i > 0 && entry.rank === live.entries[i - 1]!.rank),
      'a tie',
    );
    assert.ok(referenceBoard(data, 3).asOf! < LAST_DAY);
    assert.is(referenceBoard(data, 4).asOf, null);
    assert.is(referenceBoard(data, 5).asOf, null);
  });
}

test.run();
