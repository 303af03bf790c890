/**
 * `verify` proves a tree complete and unedited against the record the build kept in it
 * (_snapshot/manifests/), and reads numbers as their exact text. Each tampering below must be
 * caught, also when the tamperer rewrites the record to match.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { A, B, balance, build, tempDir } from './helpers/fixtures.ts';
import { verifyTree } from '../tree/verify.ts';

let tree = '';

test.before(async () => {
  const built = await build({
    balances: [
      // 1234.567890123456789012: 22 significant digits, more than a double holds.
      balance({ address: A, block_number: 1, timestamp: 1_763_400_000, balance: '1234567890123456789012' }),
      balance({ address: B, block_number: 2, timestamp: 1_763_486_400, balance: '2000000000000000000' }),
    ],
    prices: [{ chain_id: 1, token: 'uty', date: '2025-11-17', usd_price: 1.25 }],
    seasons: [{ season: 1, as_of: null }],
    points: [
      { season: 1, date: '2025-11-20', address: A, points: 3.5 },
      { season: 1, date: '2025-11-19', address: B, points: 2 },
    ],
    multipliers: [{ season: 1, position: 'hold_uty', multiplier: 2, first_day: '2025-11-01', last_day: '2025-11-30' }],
  });
  tree = built.out;
});

/** A copy of the tree, changed by `tamper`, verified. */
async function failuresAfter(tamper: (dir: string) => void): Promise<string> {
  const dir = path.join(tempDir(), 'tree');
  fs.cpSync(tree, dir, { recursive: true, dereference: true });
  tamper(dir);
  return (await verifyTree(dir)).failures.join('\n');
}

const edit = (dir: string, file: string, change: (text: string) => string) => {
  const target = path.join(dir, file);
  const before = fs.readFileSync(target, 'utf8');
  const after = change(before);
  assert.is.not(after, before, `the tampering did not change ${file}`);
  fs.writeFileSync(target, after);
};

/** What a careful tamperer adds: the record rewritten to match the edited file. */
const rewriteRecord = (dir: string, file: string) => {
  const hash = crypto
    .createHash('sha256')
    .update(fs.readFileSync(path.join(dir, file)))
    .digest('hex');
  edit(dir, '_snapshot/manifests/1-of-1.sha256', (text) => text.replace(new RegExp(`^[0-9a-f]{64}  ${file}$`, 'm'), `${hash}  ${file}`));
  const list = crypto
    .createHash('sha256')
    .update(fs.readFileSync(path.join(dir, '_snapshot/manifests/1-of-1.sha256')))
    .digest('hex');
  edit(dir, '_snapshot/manifests/1-of-1.json', (text) => text.replace(/"sha256":"[0-9a-f]{64}"/, `"sha256":"${list}"`));
};

const daily = `v1/address/${A}/portfolio/daily.json`;
const history = `v1/address/${A}/portfolio.json`;

test('the tree as built verifies, as the whole tree', async () => {
  const result = await verifyTree(tree);
  assert.equal(result.failures, []);
  assert.is(result.coverage, 'the whole tree');
  assert.match(fs.readFileSync(path.join(tree, daily), 'utf8'), '"balance":1234.567890123456789012');
});

const tamperings: [string, (dir: string) => void, string | RegExp][] = [
  [
    'a whole wallet folder deleted',
    (dir) => fs.rmSync(path.join(dir, `v1/address/${B}`), { recursive: true }),
    `v1/address/${B}/portfolio.json: missing`,
  ],
  [
    'an extra file at the top',
    (dir) => fs.writeFileSync(path.join(dir, 'index.txt'), 'hello'),
    'index.txt: extra file (not written by the build)',
  ],
  [
    'an extra file in v1/',
    (dir) => fs.writeFileSync(path.join(dir, 'v1/status.json'), '{}'),
    'v1/status.json: extra file (not written by the build)',
  ],
  ['an extra empty folder in v1/', (dir) => fs.mkdirSync(path.join(dir, 'v1/beta')), 'v1/beta/: extra folder'],
  ['openapi.json deleted', (dir) => fs.rmSync(path.join(dir, 'v1/openapi.json')), 'v1/openapi.json: missing'],
  [
    'a leaderboard total edited',
    (dir) => edit(dir, 'v1/leaderboard/s1.json', (text) => text.replace('"totalPoints":3.5', '"totalPoints":4.5')),
    'v1/leaderboard/s1.json: edited',
  ],
  [
    'a dailyRate edited',
    (dir) => edit(dir, 'v1/leaderboard/s1.json', (text) => text.replace('"dailyRate":3.5', '"dailyRate":3')),
    'v1/leaderboard/s1.json: edited',
  ],
  [
    'a multiplier edited',
    (dir) => edit(dir, 'v1/leaderboard/s1.json', (text) => text.replace('"multiplier":2', '"multiplier":3')),
    'v1/leaderboard/s1.json: edited',
  ],
  [
    'a timestamp changed',
    (dir) => edit(dir, history, (text) => text.replace('"timestamp":1763400000', '"timestamp":1763400001')),
    `${history}: edited`,
  ],
  [
    'a digit beyond the 17th significant one',
    (dir) => edit(dir, daily, (text) => text.replace('1234.567890123456789012', '1234.567890123456789013')),
    `${daily}: edited`,
  ],
  [
    "the record's list edited",
    (dir) => edit(dir, '_snapshot/manifests/1-of-1.sha256', (text) => text.replace(/^[0-9a-f]/, (digit) => (digit === '0' ? '1' : '0'))),
    '_snapshot/manifests/1-of-1.sha256: edited (its sha256 is not the one _snapshot/manifests/1-of-1.json records)',
  ],
  ['the record deleted', (dir) => fs.rmSync(path.join(dir, '_snapshot/manifests'), { recursive: true }), '_snapshot/manifests: missing'],
  [
    'a wallet deleted with its lines (record rewritten but for its wallet count)',
    (dir) => {
      fs.rmSync(path.join(dir, `v1/address/${B}`), { recursive: true });
      edit(dir, '_snapshot/manifests/1-of-1.sha256', (text) =>
        text
          .split('\n')
          .filter((line) => !line.includes(B))
          .join('\n'),
      );
      const list = crypto
        .createHash('sha256')
        .update(fs.readFileSync(path.join(dir, '_snapshot/manifests/1-of-1.sha256')))
        .digest('hex');
      edit(dir, '_snapshot/manifests/1-of-1.json', (text) =>
        text
          .replace(/"sha256":"[0-9a-f]{64}"/, `"sha256":"${list}"`)
          .replace(/"files":\d+/, (files) => `"files":${Number(files.split(':')[1]) - 2}`),
      );
    },
    '_snapshot/manifests/1-of-1.sha256: lists 1 wallets, _snapshot/manifests/1-of-1.json records 2',
  ],
  // With the record rewritten to match, the numbers themselves must give the edit away.
  [
    "a daily balance changed beyond a double's digits, record rewritten",
    (dir) => {
      edit(dir, daily, (text) => text.replace('1234.567890123456789012', '1234.567890123456789013'));
      rewriteRecord(dir, daily);
    },
    `${daily}: the positions of 2025-11-17 are not the end-of-day balances of portfolio.json (expected 1 uty 1234.567890123456789012; found 1 uty 1234.567890123456789013)`,
  ],
  [
    'a dollar value given an 18th digit, record rewritten',
    (dir) => {
      edit(dir, daily, (text) =>
        text.replace(/"valueUsd":([0-9.]+)/, (_, value: string) => `"valueUsd":${value}${value.includes('.') ? '' : '.'}00000000000000001`),
      );
      rewriteRecord(dir, daily);
    },
    new RegExp(`${daily}: valueUsd [0-9.]+00000000000000001 is not the text of the number it stands for`),
  ],
  [
    'a points total given an 18th digit, record rewritten',
    (dir) => {
      edit(dir, 'v1/leaderboard/s1.json', (text) => text.replace('"totalPoints":3.5', '"totalPoints":3.50000000000000001'));
      rewriteRecord(dir, 'v1/leaderboard/s1.json');
    },
    'v1/leaderboard/s1.json: totalPoints 3.50000000000000001 is not the text of the number it stands for (3.5)',
  ],
];

for (const [name, tamper, expected] of tamperings) {
  test(`caught: ${name}`, async () => {
    assert.match(await failuresAfter(tamper), expected);
  });
}

test.run();
