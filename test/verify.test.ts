/** `verify`: schemas and cross-file invariants over a whole tree. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { A, B, balance, build, treePaths } from './helpers/fixtures.ts';
import { verifyTree } from '../tree/verify.ts';
import { MANIFEST_DIR } from '../tree/manifest-files.ts';
import { OPENAPI_FILE } from '../tree/layout.ts';

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
  // Every JSON document of the tree is read against its schema: all but the build's own record and
  // the OpenAPI description (made from the endpoint table), whose bytes the record holds.
  const documents = treePaths(built.out).filter(
    (file) => file.endsWith('.json') && !file.startsWith(`${MANIFEST_DIR}/`) && file !== OPENAPI_FILE,
  );
  assert.ok(documents.includes(`v1/address/${A}/points/history.json`));
  assert.is(result.files, documents.length);
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

test("a wallet's folder holds every file of a wallet with history, of a participant, or of both, and nothing else (the endpoint table's)", async () => {
  const built = await sampleTree();
  const rule =
    'must hold exactly the files of a wallet with balance history (portfolio.json, portfolio/daily.json), of a participant of a season (points.json, points/history.json), or of both';
  // A participant without its points history; a wallet with history and one file more.
  fs.rmSync(path.join(built.out, `v1/address/${A}/points/history.json`));
  fs.writeFileSync(path.join(built.out, `v1/address/${B}/portfolio/weekly.json`), '{}');
  const { failures } = await verifyTree(built.out, { threads: 0 });
  assert.ok(failures.includes(`v1/address/${A}: ${rule}`), failures.join('\n'));
  assert.ok(failures.includes(`v1/address/${B}: ${rule}`), failures.join('\n'));
  // Each folder that breaks the rule fails once for it; what it does hold is still read and checked.
  assert.is(failures.filter((failure) => failure.endsWith(rule)).length, 2);
});

test('a file the system will not read is "unreadable" with the system\'s words, not "missing" (a folder in its place: EISDIR, which holds for root too)', async () => {
  const built = await sampleTree();
  // A document of a wallet (checked in a thread when there are many), a shared document, and a
  // file verify only hashes (the explorer's page).
  for (const file of [`v1/address/${A}/portfolio.json`, 'v1/seasons.json', 'index.html']) {
    fs.rmSync(path.join(built.out, file));
    fs.mkdirSync(path.join(built.out, file));
  }
  for (const threads of [0, 1]) {
    const { failures } = await verifyTree(built.out, { threads });
    assert.equal(
      failures,
      [
        'v1/seasons.json: unreadable (EISDIR: illegal operation on a directory, read)',
        `v1/address/${A}/portfolio.json: unreadable (EISDIR: illegal operation on a directory, read)`,
        'index.html: unreadable (EISDIR: illegal operation on a directory, read)',
      ],
      `threads ${threads}`,
    );
  }
  fs.rmdirSync(path.join(built.out, 'v1/seasons.json'));
  assert.ok((await verifyTree(built.out)).failures.includes('v1/seasons.json: missing'));
});

test('build records that cannot be read: one failure saying so (the tree is then checked as one without records), never a crash', async () => {
  const built = await sampleTree();
  const list = path.join(built.out, '_snapshot/manifests/1-of-1.sha256');
  fs.rmSync(list);
  fs.mkdirSync(list);
  assert.equal((await verifyTree(built.out)).failures, [
    '_snapshot/manifests/1-of-1.sha256: unreadable (EISDIR: illegal operation on a directory, read)',
  ]);
  const records = path.join(built.out, '_snapshot/manifests');
  fs.rmSync(records, { recursive: true });
  fs.writeFileSync(records, '');
  assert.equal((await verifyTree(built.out)).failures, [
    `_snapshot/manifests: unreadable (ENOTDIR: not a directory, scandir '${records}')`,
  ]);
});

test('each daily document must read off its own history: first day, positions and balances', async () => {
  // A holds 1 on chain 1 from 2025-11-17 and 3 on chain 10 from 2025-11-18; B holds 2 from 2025-11-19.
  const built = await build({
    balances: [
      balance({ address: A, block_number: 1, timestamp: 1_763_400_000, balance: '1000000000000000000' }),
      balance({ address: A, block_number: 2, timestamp: 1_763_486_400, chain_id: 10, balance: '3000000000000000000' }),
      balance({ address: B, block_number: 3, timestamp: 1_763_572_800, balance: '2000000000000000000' }),
    ],
  });
  assert.equal((await verifyTree(built.out)).failures, []);
  const file = (address: string, name: string) => path.join(built.out, `v1/address/${address}/${name}`);
  /** Verifies the tree with one document changed, then puts the document back. */
  const failuresWith = async (target: string, change: (document: any) => any) => {
    const original = fs.readFileSync(target, 'utf8');
    const document = JSON.parse(original);
    fs.writeFileSync(target, JSON.stringify(change(document) ?? document));
    const { failures } = await verifyTree(built.out);
    fs.writeFileSync(target, original);
    return failures.join('\n');
  };

  // B's history in A's folder: A's rows start before B's first snapshot.
  const historyOfB = JSON.parse(fs.readFileSync(file(B, 'portfolio.json'), 'utf8'));
  assert.match(
    await failuresWith(file(A, 'portfolio.json'), () => historyOfB),
    `v1/address/${A}/portfolio/daily.json: the rows must start on 2025-11-19, the date of the earliest snapshot in portfolio.json`,
  );
  // The first row dropped: the days still follow each other and end on asOf.
  assert.match(
    await failuresWith(file(A, 'portfolio/daily.json'), (daily) => void daily.days.shift()),
    `v1/address/${A}/portfolio/daily.json: the rows must start on 2025-11-17`,
  );
  // A balance doubled, with its value and the day's total to match: only the history tells.
  assert.match(
    await failuresWith(file(B, 'portfolio/daily.json'), (daily) => {
      const position = daily.days[0].positions[0];
      position.balance *= 2;
      position.valueUsd = position.balance * position.usdPerToken;
      daily.days[0].totalValueUsd = position.valueUsd;
    }),
    `v1/address/${B}/portfolio/daily.json: the positions of 2025-11-19 are not the end-of-day balances of portfolio.json (expected 1 uty 2; found 1 uty 4)`,
  );
  // A middle row dropped: its neighbours no longer follow each other by one day.
  assert.match(
    await failuresWith(file(A, 'portfolio/daily.json'), (daily) => void daily.days.splice(1, 1)),
    `v1/address/${A}/portfolio/daily.json: 2025-11-19 does not follow 2025-11-17 by one day`,
  );
  // A position of A's on chain 10 dropped from its last day.
  assert.match(
    await failuresWith(file(A, 'portfolio/daily.json'), (daily) => void daily.days.at(-1).positions.pop()),
    `v1/address/${A}/portfolio/daily.json: the positions of 2025-11-20 are not the end-of-day balances of portfolio.json (expected 1 uty 1, 10 uty 3; found 1 uty 1)`,
  );
  assert.equal((await verifyTree(built.out)).failures, []);
});

test('a leaderboard lists the first min(100, participants) entries and its multipliers in order', async () => {
  const built = await build({
    seasons: [{ season: 1, as_of: null }],
    points: [
      { season: 1, date: '2025-11-20', address: A, points: 3 },
      { season: 1, date: '2025-11-20', address: B, points: 2 },
    ],
    multipliers: [
      { season: 1, position: 'hold_uty', multiplier: 1, first_day: '2025-11-01', last_day: '2025-11-30' },
      { season: 1, position: 'lp_venue_a', multiplier: 2, first_day: '2025-11-01', last_day: '2025-11-30' },
    ],
  });
  assert.equal((await verifyTree(built.out)).failures, []);
  const file = path.join(built.out, 'v1/leaderboard/s1.json');
  const board = JSON.parse(fs.readFileSync(file, 'utf8'));
  fs.writeFileSync(file, JSON.stringify({ ...board, entries: board.entries.slice(0, 1), multipliers: [...board.multipliers].reverse() }));
  const text = (await verifyTree(built.out)).failures.join('\n');
  assert.match(text, 'v1/leaderboard/s1.json: 1 entries for 2 participants (the first 2 are listed)');
  assert.match(text, 'v1/leaderboard/s1.json: multipliers are not ordered by position then firstDay');
});

test('a later block with an earlier timestamp: the days follow the transaction order and the tree verifies', async () => {
  // Block 2 is stamped a day before block 1: its snapshot is the last in transaction order on both days.
  const built = await build({
    balances: [
      balance({ address: A, block_number: 1, timestamp: 1_763_486_400, balance: '1000000000000000000' }),
      balance({ address: A, block_number: 2, timestamp: 1_763_400_000, balance: '5000000000000000000' }),
    ],
  });
  const daily = built.json(`v1/address/${A}/portfolio/daily.json`);
  assert.equal(
    daily.days.map((day: any) => [day.date, day.positions.map((position: any) => position.balance)]),
    [
      ['2025-11-17', [5]],
      ['2025-11-18', [5]],
      ['2025-11-19', [5]],
      ['2025-11-20', [5]],
    ],
  );
  assert.equal((await verifyTree(built.out)).failures, []);
});

test.run();
