/** Attribution: venue-B sub-accounts count for their owner, per chain, in exact integer sums. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { A, B, SUB, SUB2, balance, build } from './helpers/fixtures.ts';

const file = (address: string) => `v1/address/${address}/portfolio.json`;
const daily = (address: string) => `v1/address/${address}/portfolio/daily.json`;
const decimalsZero = [1, 10].flatMap((chain_id) => ['uty', 'venueBUsdc'].map((token) => ({ chain_id, token, decimals: 0 })));

test("a sub-account's balances are summed into its owner's; the sub-account has no files of its own", async () => {
  const built = await build({
    balances: [
      balance({ address: A, block_number: 1, balance: '100' }),
      balance({ address: SUB, block_number: 2, balance: '50' }),
      balance({ address: SUB2, block_number: 3, balance: '7' }),
      balance({ address: SUB, block_number: 4, balance: '0' }),
    ],
    venue_b_accounts: [
      { chain_id: 1, account: SUB, owner: A },
      { chain_id: 1, account: SUB2, owner: A },
    ],
    tokens: decimalsZero,
  });
  assert.equal(
    built.json(file(A))['1'].uty.map((s: any) => s.balance),
    [100, 150, 157, 107],
  );
  assert.not.ok(built.exists(file(SUB)));
  assert.not.ok(built.exists(daily(SUB)));
});

test('identical repeated rows of an owner and of its sub-account change no sum', async () => {
  const rows = [
    balance({ address: SUB, block_number: 1, balance: '5' }),
    balance({ address: A, block_number: 2, balance: '3' }),
    balance({ address: SUB, block_number: 3, log_index: 4, balance: '9' }),
  ];
  const built = await build({
    balances: [...rows, ...rows, rows[2]!],
    venue_b_accounts: [{ chain_id: 1, account: SUB, owner: A }],
    tokens: decimalsZero,
  });
  assert.equal(
    built.json(file(A))['1'].uty.map((s: any) => s.balance),
    [5, 8, 12],
  );
});

test('a move between a wallet and its own sub-account in one transaction emits nothing', async () => {
  const built = await build({
    balances: [
      balance({ address: A, block_number: 1, balance: '100' }),
      balance({ address: A, block_number: 2, log_index: 0, tx_hash: '0xmove', balance: '60' }),
      balance({ address: SUB, block_number: 2, log_index: 1, tx_hash: '0xmove', balance: '40' }),
    ],
    venue_b_accounts: [{ chain_id: 1, account: SUB, owner: A }],
    tokens: decimalsZero,
  });
  assert.equal(
    built.json(file(A))['1'].uty.map((s: any) => s.balance),
    [100],
  );
});

test('transactions of different accounts tied on (block, smallest log index) are ordered by tx_hash', async () => {
  // DuckDB's 64-bit hash orders these four the other way round (0xtie-d lowest), so a tie broken
  // by the hash that tells transactions apart would give 10, 30, 31, 35.
  const built = await build({
    balances: [
      balance({ address: A, block_number: 5, log_index: 0, tx_hash: '0xtie-b', balance: '10' }),
      balance({ address: SUB, block_number: 5, log_index: 0, tx_hash: '0xtie-a', balance: '20' }),
      balance({ address: SUB2, block_number: 6, log_index: 3, tx_hash: '0xtie-d', balance: '1' }),
      balance({ address: A, block_number: 6, log_index: 3, tx_hash: '0xtie-c', balance: '14' }),
    ],
    venue_b_accounts: [
      { chain_id: 1, account: SUB, owner: A },
      { chain_id: 1, account: SUB2, owner: A },
    ],
    tokens: decimalsZero,
  });
  assert.equal(
    built.json(file(A))['1'].uty.map((s: any) => s.balance),
    [20, 30, 34, 35],
  );
});

test('every token of a sub-account counts, and an owner with no rows of its own is a wallet', async () => {
  const built = await build({
    balances: [balance({ address: SUB, block_number: 1, token: 'venueBUsdc', balance: '25' })],
    venue_b_accounts: [{ chain_id: 1, account: SUB, owner: A }],
    tokens: decimalsZero,
  });
  assert.equal(
    built.json(file(A))['1'].venueBUsdc.map((s: any) => s.balance),
    [25],
  );
});

test('attribution is per chain: a sub-account on chain 1 is its own wallet on chain 10', async () => {
  const built = await build({
    balances: [
      balance({ address: SUB, chain_id: 1, block_number: 1, balance: '3' }),
      balance({ address: SUB, chain_id: 10, block_number: 1, balance: '4' }),
    ],
    venue_b_accounts: [{ chain_id: 1, account: SUB, owner: A }],
    tokens: decimalsZero,
  });
  assert.equal(Object.keys(built.json(file(A))), ['1']);
  assert.equal(Object.keys(built.json(file(SUB))), ['10']);
  assert.equal(built.json(file(SUB))['10'].uty[0].balance, 4);
});

test('sums are exact above 2^64 and scaled only at the end', async () => {
  const built = await build({
    balances: [
      balance({ address: B, block_number: 1, balance: String(2n ** 70n) }),
      balance({ address: SUB, block_number: 2, balance: String(2n ** 70n + 1n) }),
    ],
    venue_b_accounts: [{ chain_id: 1, account: SUB.toUpperCase().replace('0X', '0x'), owner: B }],
  });
  const text = fs.readFileSync(path.join(built.out, file(B)), 'utf8');
  // (2^71 + 1) / 10^18 = 2361.183241434822606849
  assert.match(text, '"balance":1180.591620717411303424}');
  assert.match(text, '"balance":2361.183241434822606849}');
});

test("the preview's example wallet is one with sub-accounts", async () => {
  const C = `0x${'c'.repeat(40)}`;
  const built = await build({
    balances: [balance({ address: A, block_number: 1, balance: '1' }), balance({ address: SUB, block_number: 2, balance: '2' })],
    venue_b_accounts: [{ chain_id: 1, account: SUB, owner: C }],
    tokens: decimalsZero,
  });
  assert.is(built.json('_snapshot/meta.json').exampleWallet, C);
});

test.run();
