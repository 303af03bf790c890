/**
 * build/document-bytes.wasm: its numbers read back as the same double, its dates are the calendar's,
 * and the committed module is what its source (assembly/document-bytes.ts) compiles to.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import { DOCUMENT_BYTES_WASM } from '../build/document-bytes.ts';
import { compileDocumentBytes } from '../assembly/compile.ts';

const { exports } = new WebAssembly.Instance(new WebAssembly.Module(fs.readFileSync(DOCUMENT_BYTES_WASM)), {});
const memory = exports.memory as WebAssembly.Memory;
const formatNumber = exports.formatNumber as (at: number, value: number) => number;
const at = (exports.dataStart as () => number)();

function format(value: number): string {
  const length = formatNumber(at, value);
  return Buffer.from(memory.buffer, at, length).toString('latin1');
}

const JSON_NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

test('every double reads back exactly, as a JSON number', () => {
  const bits = new BigUint64Array(1);
  const double = new Float64Array(bits.buffer);
  let seed = 7;
  const next = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 4294967296);
  for (let i = 0; i < 300_000; i++) {
    bits[0] = (BigInt(Math.floor(next() * 2 ** 32)) << 32n) | BigInt(Math.floor(next() * 2 ** 32));
    const value = double[0]!;
    if (!Number.isFinite(value)) continue;
    const text = format(value);
    assert.ok(JSON_NUMBER.test(text), text);
    assert.is(Number(text), Object.is(value, -0) ? 0 : value, text);
  }
  // Products like valueUsd: a balance times a price.
  for (let i = 0; i < 300_000; i++) {
    const value = Math.floor(next() * 1e9) / 10 ** Math.floor(next() * 12) * (Math.round(next() * 1e6) / 1e6);
    const text = format(value);
    assert.ok(JSON_NUMBER.test(text), text);
    assert.is(Number(text), value, text);
  }
});

test('integers, zero and exponents are written as JavaScript writes them', () => {
  for (const value of [0, -0, 1, 5, 12, 100, 2 ** 53, 1e20, 1e21, 1.5e21, 123e25, 0.5, 0.1, 1e-6, 1e-7, 1.5e-7, 2.2250738585072014e-308, 5e-324, Number.MAX_VALUE, 436.1]) {
    assert.is(format(value), String(value));
  }
  // Where 17 digits are needed, several texts read back as the same double, and the one written
  // may not be JavaScript's (README, Decisions): 135802.46791358025 here, for 135802.46791358024.
  const value = 1.1 * 123456.789012345678901234;
  assert.is(Number(format(value)), value);
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

test('the committed module is what its source compiles to', async () => {
  assert.equal(await compileDocumentBytes(), new Uint8Array(fs.readFileSync(DOCUMENT_BYTES_WASM)));
});

test.run();
