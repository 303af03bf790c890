/** `verify`: schemas and cross-file invariants over a whole tree. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { A, B, balance, build } from './helpers/fixtures.ts';
import { verifyTree } from '../tree/verify.ts';

async function sampleTree() {
  return build({
    balances: [balance({ address: A, block_number: 1, balance: '1' }), balance({ address: B, block_number: 2, balance: '2' })],
    seasons: [{ season: 1, as_of: null }],
    points: [{ season: 1, date: '2025-11-20', address: A, points: 3 }],
  });
}

test('a built tree verifies', async () => {
  const built = await sampleTree();
  const result = await verifyTree(built.out);
  assert.equal(result.failures, []);
  assert.is(result.files, 8);
});

test('a daily document with another asOf, a missing leaderboard, an upper-case folder, a schema break', async () => {
  const built = await sampleTree();
  const daily = path.join(built.out, `v1/address/${A}/portfolio/daily.json`);
  const document = JSON.parse(fs.readFileSync(daily, 'utf8'));
  fs.writeFileSync(daily, JSON.stringify({ ...document, asOf: '2025-11-19' }));
  fs.rmSync(path.join(built.out, 'v1/leaderboard/s1.json'));
  fs.renameSync(path.join(built.out, `v1/address/${B}`), path.join(built.out, `v1/address/${B.toUpperCase().replace('0X', '0x')}`));
  fs.writeFileSync(path.join(built.out, '_snapshot/no-history/portfolio.json'), '[]');
  const { failures } = await verifyTree(built.out);
  const text = failures.join('\n');
  assert.match(text, `v1/address/${A}/portfolio/daily.json: asOf 2025-11-19 differs from the tree's 2025-11-20`);
  assert.match(text, 'v1/leaderboard/s1.json: missing');
  assert.match(text, 'not a lower-case address folder');
  assert.match(text, '_snapshot/no-history/portfolio.json: does not match its schema');
});

test.run();
