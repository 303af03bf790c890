/** Portfolio history: GET /v1/address/{address}/portfolio. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { A, B, balance, build, unix, PINNED_NOW } from './helpers/fixtures.ts';
import { TOKEN_KEYS } from '../schemas/token-keys.ts';

/** A chain's token keys, every one an empty array (schemas/token-keys.ts's keys, in order). */
const empty = Object.fromEntries(TOKEN_KEYS.map((key) => [key, []]));
const file = (address: string) => `v1/address/${address}/portfolio.json`;

test('one snapshot per changing transaction, every token key in order, exact JSON', async () => {
  const t1 = unix('2025-06-01T12:00:00-04:00');
  const t2 = unix('2025-06-02T12:00:00-04:00');
  const built = await build({
    balances: [
      balance({ address: A, block_number: 10, timestamp: t1, balance: '1500000000000000000' }),
      balance({ address: A, block_number: 20, timestamp: t2, token: 'venueALp', balance: '2000000000000000000' }),
    ],
  });
  const text = fs.readFileSync(path.join(built.out, file(A)), 'utf8');
  assert.is(
    text,
    JSON.stringify({
      1: {
        ...empty,
        uty: [{ date: '2025-06-01', timestamp: t1, balance: 1.5 }],
        venueALp: [{ date: '2025-06-02', timestamp: t2, balance: 2 }],
      },
    }),
  );
});

test('rows after now do not count; a wallet with no snapshot has no file', async () => {
  const now = PINNED_NOW;
  const built = await build(
    {
      balances: [
        balance({ address: A, block_number: 1, timestamp: unix(now) + 1, balance: '5' }),
        balance({ address: B, block_number: 2, timestamp: unix(now), balance: '7' }),
      ],
    },
    { now },
  );
  assert.not.ok(built.exists(file(A)));
  assert.equal(built.json(file(B))['1'].uty, [{ date: '2025-11-21', timestamp: unix(now), balance: 0.000000000000000007 }]);
});

test('a row repeating the previous balance emits nothing; a drop to zero emits 0', async () => {
  const built = await build({
    balances: [
      balance({ address: A, block_number: 1, balance: '100' }),
      balance({ address: A, block_number: 2, balance: '100' }),
      balance({ address: A, block_number: 3, balance: '0' }),
      balance({ address: A, block_number: 4, balance: '0' }),
    ],
    tokens: [{ chain_id: 1, token: 'uty', decimals: 0 }],
  });
  assert.equal(
    built.json(file(A))['1'].uty.map((s: any) => s.balance),
    [100, 0],
  );
});

test('an address whose balance rows are all zero gets no files', async () => {
  const built = await build({ balances: [balance({ address: A, block_number: 1, balance: '0' })] });
  assert.not.ok(built.exists(file(A)));
  assert.is(built.summary.wallets, 0);
});

test("rows of one transaction make one snapshot, with the account's latest row of the transaction", async () => {
  const built = await build({
    balances: [
      balance({ address: A, block_number: 5, log_index: 1, tx_hash: '0xt', balance: '10' }),
      balance({ address: A, block_number: 5, log_index: 2, tx_hash: '0xt', balance: '30' }),
      balance({ address: A, block_number: 5, log_index: 3, tx_hash: '0xt', balance: '20' }),
    ],
    tokens: [{ chain_id: 1, token: 'uty', decimals: 0 }],
  });
  assert.equal(
    built.json(file(A))['1'].uty.map((s: any) => s.balance),
    [20],
  );
});

test('transactions are ordered by block, then smallest log index, whatever the hash', async () => {
  const built = await build({
    balances: [
      balance({ address: A, block_number: 5, log_index: 7, tx_hash: '0x01', balance: '3' }),
      balance({ address: A, block_number: 5, log_index: 2, tx_hash: '0x02', balance: '2' }),
      balance({ address: A, block_number: 4, log_index: 9, tx_hash: '0x03', balance: '1' }),
    ],
    tokens: [{ chain_id: 1, token: 'uty', decimals: 0 }],
  });
  assert.equal(
    built.json(file(A))['1'].uty.map((s: any) => s.balance),
    [1, 2, 3],
  );
});

test('identical copies of the rows of interleaved transactions change no snapshot', async () => {
  // Balance rows are not merged by key before the snapshots (build/input/check.ts): a copy must
  // neither move a transaction's latest row nor emit a snapshot of its own.
  const rows = [
    balance({ address: A, block_number: 5, log_index: 1, tx_hash: '0xa', balance: '10' }),
    balance({ address: A, block_number: 5, log_index: 2, tx_hash: '0xb', balance: '40' }),
    balance({ address: A, block_number: 5, log_index: 3, tx_hash: '0xa', balance: '20' }),
    balance({ address: A, block_number: 6, log_index: 0, tx_hash: '0xc', balance: '40' }),
    balance({ address: A, block_number: 7, log_index: 0, tx_hash: '0xd', balance: '0' }),
  ];
  const built = await build({ balances: [...rows, ...rows, rows[2]!, rows[4]!], tokens: [{ chain_id: 1, token: 'uty', decimals: 0 }] });
  assert.equal(
    built.json(file(A))['1'].uty.map((s: any) => s.balance),
    [20, 40, 0],
  );
});
test('chain keys appear only with history, in ascending numeric order', async () => {
  const built = await build({
    balances: [
      balance({ address: A, chain_id: 10, block_number: 1, balance: '1' }),
      balance({ address: A, chain_id: 9, block_number: 1, balance: '1' }),
      balance({ address: A, chain_id: 8453, block_number: 1, balance: '0' }),
    ],
    tokens: [9, 10, 8453].map((chain_id) => ({ chain_id, token: 'uty', decimals: 0 })),
  });
  const text = fs.readFileSync(path.join(built.out, file(A)), 'utf8');
  assert.ok(text.startsWith('{"9":{'), text);
  assert.equal(Object.keys(JSON.parse(text)), ['9', '10']);
  assert.ok(text.indexOf('"9"') < text.indexOf('"10"'));
});

test('amounts are scaled exactly, last: above 2^64, tiny, trailing zeros, 0 decimals', async () => {
  const built = await build({
    balances: [
      balance({ address: A, block_number: 1, token: 'uty', balance: '123456789012345678901234' }),
      balance({ address: A, block_number: 1, token: 'yuty', balance: '1' }),
      balance({ address: A, block_number: 1, token: 'venueBUsdc', balance: '1500000' }),
      balance({ address: A, block_number: 1, token: 'venueALp', balance: '99999999999999999999999999999999999999' }),
      balance({ address: A, block_number: 1, token: 'venueAYt', balance: '000120' }),
    ],
    tokens: [
      { chain_id: 1, token: 'uty', decimals: 18 },
      { chain_id: 1, token: 'yuty', decimals: 18 },
      { chain_id: 1, token: 'venueBUsdc', decimals: 6 },
      { chain_id: 1, token: 'venueALp', decimals: 0 },
      { chain_id: 1, token: 'venueAYt', decimals: 36 },
    ],
  });
  const text = fs.readFileSync(path.join(built.out, file(A)), 'utf8');
  assert.match(text, '"balance":123456.789012345678901234}');
  assert.match(text, '"balance":0.000000000000000001}');
  assert.match(text, '"balance":1.5}');
  assert.match(text, '"balance":99999999999999999999999999999999999999}');
  assert.match(text, '"balance":0.00000000000000000000000000000000012}');
});

test('dates are New York days across both DST changes (23:30 and 00:30 local)', async () => {
  const times = [
    unix('2025-03-08T23:30:00-05:00'), // EST, the night before spring forward
    unix('2025-03-09T00:30:00-05:00'),
    unix('2025-03-09T23:30:00-04:00'), // EDT, after spring forward
    unix('2025-11-01T23:30:00-04:00'), // EDT, the night before fall back
    unix('2025-11-02T00:30:00-04:00'),
    unix('2025-11-02T23:30:00-05:00'), // EST, after fall back
  ];
  const built = await build({
    balances: times.map((timestamp, i) => balance({ address: A, block_number: i + 1, timestamp, balance: String(i + 1) })),
    tokens: [{ chain_id: 1, token: 'uty', decimals: 0 }],
  });
  assert.equal(
    built.json(file(A))['1'].uty.map((s: any) => [s.date, s.timestamp]),
    [
      ['2025-03-08', times[0]],
      ['2025-03-09', times[1]],
      ['2025-03-09', times[2]],
      ['2025-11-01', times[3]],
      ['2025-11-02', times[4]],
      ['2025-11-02', times[5]],
    ],
  );
});

test('times before 1970 and on New York midnight get their New York day', async () => {
  const times = [
    unix('1969-12-29T23:30:00-05:00'),
    unix('1969-12-31T23:30:00-05:00'),
    unix('1969-12-31T00:00:00-05:00'),
    unix('2025-07-04T00:00:00-04:00'),
    unix('2025-07-03T23:59:59-04:00'),
  ];
  const built = await build({
    balances: times.map((timestamp, i) => balance({ address: A, block_number: i + 1, timestamp, balance: String(i + 1) })),
    tokens: [{ chain_id: 1, token: 'uty', decimals: 0 }],
  });
  assert.equal(
    built.json(file(A))['1'].uty.map((s: any) => s.date),
    ['1969-12-29', '1969-12-31', '1969-12-31', '2025-07-04', '2025-07-03'],
  );
});

test('addresses are lower-cased in paths and merged across letter case; identical duplicate rows are one row', async () => {
  const mixed = `0xAbCdEf${'a'.repeat(34)}`;
  const lower = mixed.toLowerCase();
  const row = balance({ address: mixed, block_number: 1, balance: '5' });
  const built = await build({
    balances: [row, { ...row }, balance({ address: lower, block_number: 2, balance: '6' })],
    tokens: [{ chain_id: 1, token: 'uty', decimals: 0 }],
  });
  assert.equal(
    built.json(file(lower))['1'].uty.map((s: any) => s.balance),
    [5, 6],
  );
  assert.not.ok(built.exists(file(mixed)));
});

test.run();
