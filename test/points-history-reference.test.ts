/**
 * The points histories against a second, deliberately naive implementation: random seeded points
 * (fractions, negatives, zeros, values of far-apart magnitudes, rows repeating (season, date,
 * address), addresses in mixed case, rows after the cut-off), frozen and live seasons, seasons
 * without a day. Every participant's history file must be exactly the reference's JSON: each day
 * from its first row to A, the day's exact sum and the running exact sum each rounded once (BigInt
 * over every double's exact value, rounded through decimal text, independently of
 * build/compute/exact-sum.ts and of the SQL), and the rank by counting, day by day, the wallets
 * with a greater sum.
 */
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { build, type Row } from './helpers/fixtures.ts';
import { seededRandom as random } from '../core/seeded-random.ts';

const LAST_DAY = '2025-11-20';
/** Values a points export has: decimals, negatives and zeros (summed in SQL). */
const ORDINARY = [1, 2, 5, 10, 100, 0, -3, 0.1, 0.2, 0.3, 1 / 3, 2.5, 123456.789, -0.1, 0.01];
/** And values of magnitudes far apart in one wallet (summed apart, in JS). */
const EXTREME = [1e-9, 2 ** -60, 1e15, 7e22, -7e22];

const day = (offset: number) => new Date(Date.parse('2025-10-25T00:00:00Z') + offset * 86_400_000).toISOString().slice(0, 10);
const next = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

function dataset(seed: number) {
  const draw = random(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(draw() * items.length)]!;
  const seasons: Row[] = [
    { season: 1, as_of: pick(['2025-11-05', '2025-11-24', '2025-11-12']) },
    { season: 2, as_of: null },
    // Frozen before any of its points, and points only after L: no day.
    { season: 3, as_of: '2025-10-01' },
    { season: 4, as_of: null },
  ];
  const points: Row[] = [];
  for (let w = 0; w < 60; w++) {
    const address = `0x${(0xbee000 + w).toString(16).padStart(40, '0')}`;
    const values = w % 4 === 0 ? [...ORDINARY, ...EXTREME] : ORDINARY;
    // Few distinct days, so that wallets tie and rows repeat a (season, date, address).
    for (let k = 1 + Math.floor(draw() * 8); k > 0; k--) {
      points.push({
        season: pick([1, 1, 2, 2, 2, 3]),
        date: day(Math.floor(draw() * 30)),
        address: draw() < 0.2 ? address.toUpperCase().replace('0X', '0x') : address,
        points: pick(values),
      });
    }
  }
  points.push({ season: 4, date: '2025-11-21', address: `0x${'4'.repeat(40)}`, points: 9 });
  return { seasons, points };
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

/** The double nearest an exact count of 2^-1074 (decimal text, which Number() rounds once). */
function rounded(total: bigint): number {
  const negative = total < 0n;
  const digits = ((negative ? -total : total) * 5n ** 1074n).toString().padStart(1075, '0');
  return Number(`${negative ? '-' : ''}${digits.slice(0, -1074)}.${digits.slice(-1074)}`);
}

/** Each participant's document, as the rules say, computed the slow way. */
function referenceHistories(data: ReturnType<typeof dataset>) {
  const documents = new Map<string, object[]>();
  for (const { season, as_of: asOf } of data.seasons as { season: number; as_of: string | null }[]) {
    const cutoff = asOf !== null && asOf < LAST_DAY ? asOf : LAST_DAY;
    const rows = data.points.filter((row) => row.season === season && (row.date as string) <= cutoff);
    if (rows.length === 0) continue;
    const last =
      asOf !== null
        ? cutoff
        : rows
            .map((row) => row.date as string)
            .sort()
            .at(-1)!;
    const wallets = [...new Set(rows.map((row) => (row.address as string).toLowerCase()))];
    const rowsOf = (wallet: string) => rows.filter((row) => (row.address as string).toLowerCase() === wallet);
    const first = new Map(
      wallets.map((wallet) => [
        wallet,
        rowsOf(wallet)
          .map((row) => row.date as string)
          .sort()[0]!,
      ]),
    );
    // Every wallet's rounded running sum on each day of the season, for the ranks.
    const dates: string[] = [];
    for (let date = [...first.values()].sort()[0]!; date <= last; date = next(date)) dates.push(date);
    const sums = new Map(
      wallets.map((wallet) => [
        wallet,
        dates.map((date) =>
          rounded(
            rowsOf(wallet)
              .filter((row) => (row.date as string) <= date)
              .reduce((sum, row) => sum + exactUnits(row.points as number), 0n),
          ),
        ),
      ]),
    );
    for (const wallet of wallets.sort()) {
      const totals = sums.get(wallet)!;
      if (!(totals.at(-1)! > 0)) continue;
      const days = dates.flatMap((date, i) => {
        if (date < first.get(wallet)!) return [];
        const points = rounded(
          rowsOf(wallet)
            .filter((row) => row.date === date)
            .reduce((sum, row) => sum + exactUnits(row.points as number), 0n),
        );
        const totalPoints = totals[i]!;
        const rank = totalPoints > 0 ? 1 + wallets.filter((other) => sums.get(other)![i]! > totalPoints).length : null;
        return [{ date, points, totalPoints, rank }];
      });
      documents.set(wallet, [...(documents.get(wallet) ?? []), { season, asOf: last, days }]);
    }
  }
  return documents;
}

test('the reference rounds exact sums once', () => {
  assert.is(rounded(exactUnits(0.1) + exactUnits(0.2)), 0.30000000000000004);
  assert.is(rounded(exactUnits(1e16) + exactUnits(1) + exactUnits(1)), 10000000000000002);
  assert.is(rounded(exactUnits(7e22) + exactUnits(2 ** -60) - exactUnits(7e22)), 2 ** -60);
});

for (const seed of [1, 2, 3]) {
  test(`seed ${seed}: every participant's points history equals the reference`, async () => {
    const data = dataset(seed);
    const built = await build(data);
    const expected = referenceHistories(data);
    const folders = fs.readdirSync(path.join(built.out, 'v1/address'));
    assert.equal(
      folders.filter((address) => built.exists(`v1/address/${address}/points/history.json`)).sort(),
      [...expected.keys()].sort(),
    );
    for (const [wallet, seasons] of expected) {
      assert.is(
        fs.readFileSync(path.join(built.out, `v1/address/${wallet}/points/history.json`), 'utf8'),
        JSON.stringify({ seasons }),
        wallet,
      );
    }
    // The dataset reaches what it is for: ties, ranks lost to a sum <= 0, several seasons, and
    // wallets whose magnitudes are too far apart for SQL's HUGEINT sums (1e-9 or 2^-60 beside 1).
    type Season = { season: number; days: { rank: number | null; date: string }[] };
    const entries = [...expected.values()].flat() as Season[];
    assert.ok(
      entries.some((one) => one.days.some((day) => day.rank === null)),
      'a day without a rank',
    );
    assert.ok(
      [...expected.values()].some((seasons) => seasons.length > 1),
      'a wallet in two seasons',
    );
    const ranksOfDay = new Map<string, number[]>();
    for (const one of entries)
      for (const { date, rank } of one.days)
        if (rank !== null) ranksOfDay.set(`${one.season} ${date}`, [...(ranksOfDay.get(`${one.season} ${date}`) ?? []), rank]);
    assert.ok(
      [...ranksOfDay.values()].some((ranks) => new Set(ranks).size < ranks.length),
      'a tie',
    );
    const wide = [...expected.keys()].some((wallet) =>
      [1, 2].some((season) => {
        const values = data.points
          .filter((row) => row.season === season && (row.address as string).toLowerCase() === wallet)
          .map((row) => Math.abs(row.points as number));
        return values.some((value) => value > 0 && value < 1e-8) && values.some((value) => value >= 1);
      }),
    );
    assert.ok(wide, 'a wallet summed outside SQL');
  });
}

test.run();
