/**
 * build/write/document-bytes.wasm: its numbers are JavaScript's text for the same double, its
 * dates are the calendar's, and a points history's day rows are the text JavaScript writes for them. That the committed module is what its source compiles to is checked
 * in the slow tier (test/slow/wasm-source.test.ts): compiling it costs more than the rest.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import { DOCUMENT_BYTES_WASM, HistoryDayBytes } from '../build/write/document-bytes.ts';
import { dayText } from '../build/compute/days.ts';

const { exports } = new WebAssembly.Instance(new WebAssembly.Module(fs.readFileSync(DOCUMENT_BYTES_WASM)), {});
const memory = exports.memory as WebAssembly.Memory;
const formatNumber = exports.formatNumber as (at: number, value: number) => number;
const at = (exports.dataStart as () => number)();

function format(value: number): string {
  const length = formatNumber(at, value);
  return Buffer.from(memory.buffer, at, length).toString('latin1');
}

// A small generator with a seed, so that a failure can be replayed.
let seed = 7;
const next = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 4294967296;

function expectJavaScriptText(value: number): void {
  const text = format(value);
  if (text !== String(value)) assert.is(text, String(value), `the double ${String(value)}`);
}

test('every double is written as String() writes it', () => {
  const bits = new BigUint64Array(1);
  const double = new Float64Array(bits.buffer);
  for (let i = 0; i < 300_000; i++) {
    bits[0] = (BigInt(Math.floor(next() * 2 ** 32)) << 32n) | BigInt(Math.floor(next() * 2 ** 32));
    if (Number.isFinite(double[0])) expectJavaScriptText(double[0]!);
  }
  // Products like valueUsd: a balance times a price, most of them needing 16 or 17 digits.
  for (let i = 0; i < 300_000; i++) {
    expectJavaScriptText((Math.floor(next() * 1e12) / 10 ** Math.floor(next() * 20)) * (Math.round(next() * 1e8) / 1e6));
  }
  // Both sides of every power of two, where the interval of a double is lopsided, subnormals included.
  for (let exponent = -1074; exponent <= 1023; exponent++) {
    const power = 2 ** exponent;
    expectJavaScriptText(power);
    double[0] = power;
    bits[0] += 1n;
    expectJavaScriptText(double[0]);
    bits[0] -= 2n;
    if (double[0] !== 0) expectJavaScriptText(double[0]);
  }
  // Where fewer digits than 17 are exactly halfway, or a value is an exact decimal.
  for (let exponent = -324; exponent <= 308; exponent++) {
    for (const digits of ['1', '2', '5', '9', '15', '25', '125', '9999999999999999', '12345678901234567']) {
      const value = Number(`${digits}e${exponent}`);
      if (Number.isFinite(value) && value !== 0) expectJavaScriptText(value);
    }
  }
});

test('integers, zero and the edges of each notation are written as JavaScript writes them', () => {
  for (const value of [
    0,
    -0,
    1,
    -1,
    5,
    12,
    100,
    2 ** 53 - 1,
    2 ** 53,
    2 ** 53 + 2,
    1e20,
    1e21 - 65536,
    1e21,
    1.5e21,
    123e25,
    0.5,
    0.1,
    0.1 + 0.2,
    1e-6,
    1.5e-6,
    1e-7,
    1.5e-7,
    2.2250738585072014e-308,
    2.225073858507201e-308,
    5e-324,
    Number.MAX_VALUE,
    436.1,
    1.1 * 123456.789012345678901234,
  ]) {
    expectJavaScriptText(value);
  }
  for (let i = 0; i < 20_000; i++) {
    expectJavaScriptText(i);
    expectJavaScriptText(i / 100);
    expectJavaScriptText(i * 1e15);
  }
});

test('dates from year 1 to 9999 are written as toISOString writes them', () => {
  const formatDate = exports.formatDate as (at: number, day: number) => void;
  const first = Date.parse('0001-01-01T00:00:00Z') / 86_400_000;
  const last = Date.parse('9999-12-31T00:00:00Z') / 86_400_000;
  // Every day from 1967 to 2052, one day in 97 before and after.
  for (let day = first; day <= last; day += day < -1000 || day > 30_000 ? 97 : 1) {
    formatDate(at, day);
    assert.is(Buffer.from(memory.buffer, at, 10).toString('latin1'), new Date(day * 86_400_000).toISOString().slice(0, 10));
  }
});

test("a points history's day rows are the text JavaScript writes for the same days; a value not finite names its day", () => {
  const writer = new HistoryDayBytes();
  const value = () => {
    const kind = Math.floor(next() * 6);
    if (kind === 0) return Math.floor(next() * 1e6) - 1000;
    if (kind === 1) return (Math.floor(next() * 1e9) - 1e8) / 10 ** Math.floor(next() * 8);
    if (kind === 2) return (next() - 0.5) * 10 ** Math.floor(next() * 50 - 25);
    if (kind === 3) return [0, -0, 1e21, 1.5e-7, 2 ** 53, -(2 ** 60)][Math.floor(next() * 6)]!;
    return next() * 1e4 * 1.1;
  };
  for (const count of [3_000, 0, 1, 40, 20_000, 7]) {
    const columns = {
      days: Int32Array.from({ length: count + 20 }, () => Math.floor(next() * 40_000) - 5_000),
      points: Float64Array.from({ length: count + 20 }, value),
      totals: Float64Array.from({ length: count + 20 }, value),
      ranks: Int32Array.from({ length: count + 20 }, () => (next() < 0.2 ? 0 : Math.floor(next() * 2 ** 31))),
    };
    const from = 11;
    const expected = Array.from(
      { length: count },
      (_, k) =>
        `{"date":"${dayText(columns.days[from + k]!)}","points":${String(columns.points[from + k])},"totalPoints":${String(columns.totals[from + k])},"rank":${columns.ranks[from + k] === 0 ? 'null' : String(columns.ranks[from + k])}}`,
    ).join(',');
    const rows = writer.rows(columns, from, count);
    assert.ok(rows instanceof Uint8Array);
    assert.is(Buffer.from(rows).toString('latin1'), expected);
  }
  const columns = {
    days: Int32Array.of(20_000, 20_001),
    points: Float64Array.of(1, 2),
    totals: Float64Array.of(1, Infinity),
    ranks: Int32Array.of(1, 1),
  };
  assert.equal(writer.rows(columns, 0, 2), { failedDay: 20_001 });
});

test.run();
