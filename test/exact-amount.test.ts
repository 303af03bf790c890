/** Amounts "scaled last": raw sums cross as 32-bit limbs and become exact decimal text. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rawDigits, scaledText } from '../build/compute/exact-amount.ts';

const limbsOf = (value: bigint): [number, number, number, number] =>
  [96n, 64n, 32n, 0n].map((shift) => Number((value >> shift) & 0xffffffffn)) as [number, number, number, number];

test('raw digits are exact at the edges of each limb and of double precision', () => {
  const edges = [
    0n,
    1n,
    999_999n,
    1_000_000n,
    2n ** 32n - 1n,
    2n ** 32n,
    2n ** 53n - 1n,
    2n ** 53n,
    2n ** 53n + 1n,
    2n ** 64n - 1n,
    2n ** 64n,
    10n ** 18n,
    10n ** 24n - 1n,
    10n ** 38n - 1n,
    10n ** 38n,
    2n ** 127n - 1n,
    // A multiple of 10^6 just past 2^53, and its neighbours.
    (2n ** 53n / 1_000_000n + 1n) * 1_000_000n - 1n,
    (2n ** 53n / 1_000_000n + 1n) * 1_000_000n,
  ];
  for (const value of edges) assert.is(rawDigits(...limbsOf(value)), value.toString(), `digits of ${value}`);
});

test('raw digits match BigInt on 20,000 random values of every size', () => {
  let state = 12345n;
  const next = () => (state = (state * 6364136223846793005n + 1442695040888963407n) & (2n ** 64n - 1n));
  for (let i = 0; i < 20_000; i++) {
    const bits = BigInt(i % 127) + 1n;
    const value = ((next() << 64n) | next()) & (2n ** bits - 1n);
    assert.is(rawDigits(...limbsOf(value)), value.toString());
  }
});

test('scaled text: no exponent, no trailing fraction zeros, a zero before the point', () => {
  assert.is(scaledText('0', 18), '0');
  assert.is(scaledText('1', 18), '0.000000000000000001');
  assert.is(scaledText('1000000000000000000', 18), '1');
  assert.is(scaledText('1500000000000000000', 18), '1.5');
  assert.is(scaledText('123456789', 6), '123.456789');
  assert.is(scaledText('120', 2), '1.2');
  assert.is(scaledText('100', 2), '1');
  assert.is(scaledText('5', 1), '0.5');
  assert.is(scaledText('42', 0), '42');
  assert.is(scaledText('99999999999999999999999999999999999999', 18), '99999999999999999999.999999999999999999');
});

test.run();
