/** The exact sums of points (totalPoints, dailyRate, the histories' totals), rounded once to the nearest double. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN_BITS, nearestDouble, nearestDoubleSql, roundBinnedSum } from '../build/compute/exact-sum.ts';
import { scratchDatabase } from './helpers/fixtures.ts';

test('nearest double, ties to even, in the normal range', () => {
  assert.is(nearestDouble(0n, -1074), 0);
  assert.is(nearestDouble(-5n, -1), -2.5);
  assert.is(nearestDouble(2n ** 60n + 128n, 0), 2 ** 60, 'a tie rounds to the even neighbour');
  assert.is(nearestDouble(2n ** 60n + 129n, 0), 2 ** 60 + 256);
  assert.is(nearestDouble(2n ** 60n + 384n, 0), 2 ** 60 + 512, 'a tie rounds up to the even neighbour');
});

test('nearest double below the normal range and beyond the largest one', () => {
  assert.is(nearestDouble(1n, -1074), 5e-324);
  assert.is(nearestDouble(3n, -1075), 1e-323, '1.5 units of the smallest subnormal: a tie, to even');
  assert.is(nearestDouble(1n, -1076), 0, 'a quarter of the smallest subnormal');
  assert.is(nearestDouble(2n ** 1100n, -1100), 1);
  assert.is(nearestDouble(1n, 1023), 2 ** 1023);
  assert.is(nearestDouble(1n, 1024), Infinity);
  assert.is(nearestDouble(2n ** 1024n, 0), Infinity);
});

test('bins combine before the one rounding', () => {
  // 1 + 2^-53 + 2^-80: each bin alone would round away the low parts.
  const bins = [Math.floor(-80 / BIN_BITS), Math.floor(-53 / BIN_BITS), 0];
  const sums = [1n << BigInt(-80 - BIN_BITS * bins[0]!), 1n << BigInt(-53 - BIN_BITS * bins[1]!), 1n];
  assert.is(roundBinnedSum(bins, sums), 1.0000000000000002);
  assert.is(roundBinnedSum([], []), 0);
});

/** Sums that round hard: exact ties at 53 bits, one unit either side of them, around 2^62 and up to 2^127. */
function hardSums(): bigint[] {
  let seed = 12345n;
  const random = (bits: number) => {
    seed = (seed * 6364136223846793005n + 1442695040888963407n) & (2n ** 64n - 1n);
    return (seed >> 11n) & ((1n << BigInt(bits)) - 1n);
  };
  const sums = [
    0n,
    1n,
    2n ** 53n + 1n,
    2n ** 62n - 1n,
    2n ** 62n,
    2n ** 62n + 1n,
    2n ** 63n,
    2n ** 64n - 1n,
    2n ** 64n,
    2n ** 126n + 2n ** 73n,
    2n ** 127n - 1n,
  ];
  for (let shift = 0n; shift <= 72n; shift += 3n) {
    const tie = ((1n << 53n) | random(53) | 1n) << shift; // 54 significant bits, the last one a half
    sums.push(tie, tie + 1n, tie - 1n);
    if (shift > 0n) {
      const above = random(53) << (shift + 1n);
      sums.push(above | (1n << shift) | 1n, above | ((1n << shift) - 1n)); // just above, just below a half
    }
  }
  return sums.flatMap((sum) => (sum === 0n ? [sum] : [sum, -sum]));
}

test('the SQL rounding of a HUGEINT sum gives the nearest double, ties to even', async () => {
  const db = await scratchDatabase();
  try {
    const sums = hardSums();
    const values = sums.map((sum, i) => `(${i}, '${sum}'::HUGEINT, ${(i % 5) - 2})`).join(', ');
    const rows = await db.rows<{ i: number; value: number }>(
      `SELECT i, ${nearestDoubleSql('h', `${BIN_BITS} * lowest_bin`)} AS value FROM (VALUES ${values}) t(i, h, lowest_bin) ORDER BY i`,
    );
    assert.is(rows.length, sums.length);
    for (const row of rows) {
      const expected = nearestDouble(sums[row.i]!, BIN_BITS * ((row.i % 5) - 2));
      assert.ok(
        Object.is(row.value, expected) || (row.value === 0 && expected === 0),
        `${sums[row.i]}: ${row.value}, expected ${expected}`,
      );
    }
  } finally {
    db.close();
  }
});

test.run();
