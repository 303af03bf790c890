/**
 * The writer of the documents' bulk (build/write/document-bytes.ts and its WebAssembly module)
 * against the exact text the documents must hold, on hand-built wallets: zero, tiny and huge
 * balances, a price of 0, no price (usdPerToken 0, counted), a price series that starts after the
 * wallet's first day, several chains and tokens, a wallet whose one snapshot is on the last day, a
 * value or a day's total that overflows.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DocumentBytes } from '../build/write/document-bytes.ts';
import type { EndOfDaySeries, PriceBook, TokenSeries } from '../build/compute/wallet-series.ts';

const day = (date: string) => Date.parse(`${date}T00:00:00Z`) / 86_400_000;
const D18 = day('2025-11-18');
const D19 = day('2025-11-19');
const D20 = day('2025-11-20');

/** Prices from their first day to 2025-11-20, by (chain, token index); texts as String() makes them. */
function book(entries: Record<string, { firstDay: number; values: number[] }>): PriceBook {
  const prices: PriceBook = new Map();
  for (const [key, { firstDay, values }] of Object.entries(entries)) {
    prices.set(key, { firstDay, values: Float64Array.from(values), texts: values.map(String) });
  }
  return prices;
}

// chain 1 uty (token 0): 2, 2, 0.5; chain 1 venueBUsdc (4): 1, then 0 (a price of 0), then 1;
// chain 10 venueAYt (5): from 2025-11-19 only; chain 10 yuty (1): no price at all.
const PRICES = book({
  '1:0': { firstDay: D18, values: [2, 2, 0.5] },
  '1:4': { firstDay: D18, values: [1, 0, 1] },
  '10:5': { firstDay: D19, values: [3, 3] },
});
const CHAINS = ['1', '10'];

const series = (chainId: string, tokenIndex: number, snapshots: [number, number, string][]): TokenSeries => ({
  chainId,
  tokenIndex,
  days: snapshots.map(([d]) => d),
  timestamps: snapshots.map(([, timestamp]) => timestamp),
  balances: snapshots.map(([, , balance]) => balance),
});

const HUGE = '123456789012345678901234567890.5';
/** Four series on two chains, a zero balance, a price of 0, a price from the second day, no price. */
const WALLET = [
  series('1', 0, [
    [D18, 1763460000, '1.5'],
    [D20, 1763650799, '0'],
  ]),
  series('1', 4, [[D18, 1763463600, '0.1']]),
  series('10', 1, [[D19, 1763510400, '0.2']]),
  series('10', 5, [[D18, 1763467200, HUGE]]),
];

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('latin1');

function rows(writer: DocumentBytes, wallet: EndOfDaySeries[], firstDay: number, lastDay: number) {
  const written = writer.dayRows(wallet, firstDay, lastDay);
  return 'rows' in written ? { rows: text(written.rows), withoutPrice: written.withoutPrice } : written;
}

test(`the snapshots of each series, as the history document holds them`, () => {
  const writer = new DocumentBytes(PRICES, CHAINS);
  writer.startWallet(WALLET);
  assert.is(
    text(writer.snapshots(0)),
    '{"date":"2025-11-18","timestamp":1763460000,"balance":1.5},{"date":"2025-11-20","timestamp":1763650799,"balance":0}',
  );
  assert.is(text(writer.snapshots(3)), `{"date":"2025-11-18","timestamp":1763467200,"balance":${HUGE}}`);
});

test(`day rows over several chains and tokens, with zero, missing and late prices`, () => {
  const writer = new DocumentBytes(PRICES, CHAINS);
  writer.startWallet(WALLET);
  // Each value is balance * usdPerToken as doubles (the huge balance reads as 1.2345678901234568e+29),
  // the total their left-to-right sum; a zero balance is no position; no price is usdPerToken 0,
  // counted (venueAYt on the 18th, yuty on the 19th and 20th), a price of 0 is not.
  const expected = [
    '{"date":"2025-11-18","totalValueUsd":3.1,"positions":[' +
      '{"token":"uty","chainId":1,"balance":1.5,"usdPerToken":2,"valueUsd":3},' +
      '{"token":"venueBUsdc","chainId":1,"balance":0.1,"usdPerToken":1,"valueUsd":0.1},' +
      `{"token":"venueAYt","chainId":10,"balance":${HUGE},"usdPerToken":0,"valueUsd":0}]}`,
    '{"date":"2025-11-19","totalValueUsd":3.70370367037037e+29,"positions":[' +
      '{"token":"uty","chainId":1,"balance":1.5,"usdPerToken":2,"valueUsd":3},' +
      '{"token":"venueBUsdc","chainId":1,"balance":0.1,"usdPerToken":0,"valueUsd":0},' +
      '{"token":"yuty","chainId":10,"balance":0.2,"usdPerToken":0,"valueUsd":0},' +
      `{"token":"venueAYt","chainId":10,"balance":${HUGE},"usdPerToken":3,"valueUsd":3.70370367037037e+29}]}`,
    '{"date":"2025-11-20","totalValueUsd":3.70370367037037e+29,"positions":[' +
      '{"token":"venueBUsdc","chainId":1,"balance":0.1,"usdPerToken":1,"valueUsd":0.1},' +
      '{"token":"yuty","chainId":10,"balance":0.2,"usdPerToken":0,"valueUsd":0},' +
      `{"token":"venueAYt","chainId":10,"balance":${HUGE},"usdPerToken":3,"valueUsd":3.70370367037037e+29}]}`,
  ].join(',');
  assert.equal(rows(writer, WALLET, D18, D20), { rows: expected, withoutPrice: 3 });
  // The same wallet again: nothing is carried over from one call to the next.
  assert.equal(rows(writer, WALLET, D18, D20), { rows: expected, withoutPrice: 3 });
});

test(`a wallet with one snapshot on the last day; a total summed left to right; a tiny balance`, () => {
  const writer = new DocumentBytes(PRICES, CHAINS);
  const last = [
    series('1', 0, [[D20, 1763683200, '0.2']]),
    series('1', 4, [[D20, 1763683201, '0.2']]),
    series('10', 5, [[D20, 1763683202, '0.1']]),
  ];
  writer.startWallet(last);
  // (0.1 + 0.2) + 0.30000000000000004 is 0.6000000000000001; summed from the right it would be 0.6.
  assert.equal(rows(writer, last, D20, D20), {
    rows:
      '{"date":"2025-11-20","totalValueUsd":0.6000000000000001,"positions":[' +
      '{"token":"uty","chainId":1,"balance":0.2,"usdPerToken":0.5,"valueUsd":0.1},' +
      '{"token":"venueBUsdc","chainId":1,"balance":0.2,"usdPerToken":1,"valueUsd":0.2},' +
      '{"token":"venueAYt","chainId":10,"balance":0.1,"usdPerToken":3,"valueUsd":0.30000000000000004}]}',
    withoutPrice: 0,
  });
  const tiny = [series('1', 4, [[D18, 1763424000, '0.000000000000000001']])];
  writer.startWallet(tiny);
  assert.equal(rows(writer, tiny, D18, D20), {
    rows: [
      '{"date":"2025-11-18","totalValueUsd":1e-18,"positions":[{"token":"venueBUsdc","chainId":1,"balance":0.000000000000000001,"usdPerToken":1,"valueUsd":1e-18}]}',
      '{"date":"2025-11-19","totalValueUsd":0,"positions":[{"token":"venueBUsdc","chainId":1,"balance":0.000000000000000001,"usdPerToken":0,"valueUsd":0}]}',
      '{"date":"2025-11-20","totalValueUsd":1e-18,"positions":[{"token":"venueBUsdc","chainId":1,"balance":0.000000000000000001,"usdPerToken":1,"valueUsd":1e-18}]}',
    ].join(','),
    withoutPrice: 0,
  });
});

test(`days before any snapshot and all-zero days are rows without positions`, () => {
  const writer = new DocumentBytes(PRICES, CHAINS);
  const wallet = [series('1', 0, [[D18, 1763424000, '0']]), series('1', 4, [[D20, 1763683200, '7']])];
  writer.startWallet(wallet);
  assert.equal(rows(writer, wallet, D18, D20), {
    rows:
      '{"date":"2025-11-18","totalValueUsd":0,"positions":[]},{"date":"2025-11-19","totalValueUsd":0,"positions":[]},' +
      '{"date":"2025-11-20","totalValueUsd":7,"positions":[{"token":"venueBUsdc","chainId":1,"balance":7,"usdPerToken":1,"valueUsd":7}]}',
    withoutPrice: 0,
  });
});

test(`a value that is not a finite double names its series and day`, () => {
  const writer = new DocumentBytes(book({ '1:4': { firstDay: D18, values: [1, 1, 1e300] } }), CHAINS);
  const wallet = [series('1', 0, [[D18, 1763424000, '5']]), series('1', 4, [[D18, 1763424000, '10000000000']])];
  writer.startWallet(wallet);
  assert.equal(writer.dayRows(wallet, D18, D20), { failedSeries: 1, failedDay: D20 });
});

test('finite values whose total overflows name the day, as series `count`', () => {
  const writer = new DocumentBytes(book({ '1:0': { firstDay: D20, values: [1e308] }, '1:4': { firstDay: D20, values: [1e308] } }), CHAINS);
  const wallet = [series('1', 0, [[D20, 1763683200, '1']]), series('1', 4, [[D20, 1763683200, '1']])];
  writer.startWallet(wallet);
  assert.equal(writer.dayRows(wallet, D20, D20), { failedSeries: 2, failedDay: D20 });
});

test('a chain the writer was not given is an internal error', () => {
  const writer = new DocumentBytes(PRICES, CHAINS);
  assert.throws(() => writer.dayRows([series('8453', 0, [[D20, 1763683200, '1']])], D20, D20), /no prefix for chain 8453, token 0/);
});

test.run();
