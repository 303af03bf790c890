/** The leaderboard's sums: the exact sum of the points, rounded once to the nearest double. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN_BITS, nearestDouble, roundBinnedSum } from '../build/compute/exact-sum.ts';

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

test.run();
