/**
 * Seconds as the progress lines and summaries write them (core/format.ts): `12.3s` under a minute,
 * `1m08s` above; counts, money, percentages and changes as the guard and the reports write them.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  formatChange,
  formatCount,
  formatPercent,
  formatPercentagePoints,
  formatPoints,
  formatSeconds,
  formatShare,
  formatUsd,
} from '../core/format.ts';

test('seconds as people read them', () => {
  assert.is(formatSeconds(12.34), '12.3s');
  assert.is(formatSeconds(0), '0.0s');
  assert.is(formatSeconds(59.94), '59.9s');
  assert.is(formatSeconds(68.2), '1m08s');
  assert.is(formatSeconds(1436.75), '23m57s');
});

test("counts, money, percentages and changes as the guard's messages and the reports write them", () => {
  assert.is(formatCount(1234567), '1,234,567');
  assert.is(formatUsd(151398611.744), '$151,398,611.74');
  assert.is(formatUsd(0), '$0.00');
  assert.is(formatPercent(0.05), '5%');
  assert.is(formatPercent(0.005), '0.5%');
  assert.is(formatPercent(0.07), '7%', 'not 7.000000000000001%');
  assert.is(formatShare(139, 1000), '13.9%');
  assert.is(formatShare(1, 0), '-');
  assert.is(formatPoints(0.15 - 0.139), '+1.10 points');
  assert.is(formatPoints(-0.02), '-2.00 points');
  assert.is(formatPoints(1e-17), '0.00 points');
  assert.is(formatPercentagePoints(0.01), '1 percentage point');
  assert.is(formatPercentagePoints(0.025), '2.5 percentage points');
  assert.is(formatChange(20, 18), '-10.0%');
  assert.is(formatChange(2100, 2300, 2), '+9.52%');
  assert.is(formatChange(2100, 2100.0000000001, 2), '0.00%', 'the last bits of a sum are no change');
  assert.is(formatChange(0, 5), 'from 0');
  assert.is(formatChange(0, 0), '0%');
});

test.run();
