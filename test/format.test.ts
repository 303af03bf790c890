/**
 * Seconds as the progress lines and summaries write them (core/format.ts), and read back the same
 * way by the benchmark (prepare's `stages:` line): `12.3s` under a minute, `1m08s` above.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatSeconds, parseSeconds } from '../core/format.ts';

test('seconds written and read back', () => {
  assert.is(formatSeconds(12.34), '12.3s');
  assert.is(formatSeconds(68.2), '1m08s');
  assert.is(formatSeconds(1436.75), '23m57s');
  assert.is(parseSeconds('12.3s'), 12.3);
  assert.is(parseSeconds('1m08s'), 68);
  assert.is(parseSeconds('23m57s'), 1437);
  assert.is(parseSeconds('0.0s'), 0);
  for (const seconds of [0.2, 59.9, 60, 61.4, 3599, 7322]) assert.ok(Math.abs(parseSeconds(formatSeconds(seconds)) - seconds) <= 0.5, String(seconds));
  assert.ok(Number.isNaN(parseSeconds('1m8s')));
  assert.ok(Number.isNaN(parseSeconds('soon')));
});

test.run();
