/**
 * Seconds as the progress lines and summaries write them (core/format.ts): `12.3s` under a minute,
 * `1m08s` above.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatSeconds } from '../core/format.ts';

test('seconds as people read them', () => {
  assert.is(formatSeconds(12.34), '12.3s');
  assert.is(formatSeconds(0), '0.0s');
  assert.is(formatSeconds(59.94), '59.9s');
  assert.is(formatSeconds(68.2), '1m08s');
  assert.is(formatSeconds(1436.75), '23m57s');
});

test.run();
