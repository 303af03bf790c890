/**
 * The points history of every participant (GET /v1/address/{a}/points/history), now pinned:
 * L = 2025-11-20. Each season's days from the wallet's first day F to the season's day A, the
 * day's points, the running total and the competition rank on that day among all wallets.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { A, B, C, balance, build, fileHash, type Built, type Row } from './helpers/fixtures.ts';
import { PointsHistorySchema } from '../schemas/points-history.ts';
import { verifyPointsHistory } from '../tree/verify-points-history.ts';

const D = `0x${'d'.repeat(40)}`;
const E = `0x${'e'.repeat(40)}`;
const F = `0x${'f'.repeat(40)}`;
const LEADER = `0x${'1'.repeat(40)}`;
const GONE_NEGATIVE = `0x${'2'.repeat(40)}`;
const ONLY_AFTER = `0x${'3'.repeat(40)}`;
const history = (address: string) => `v1/address/${address}/points/history.json`;
const standing = (address: string) => `v1/address/${address}/points.json`;
const upper = (address: string) => address.toUpperCase().replace('0X', '0x');

/**
 * Season 1 frozen at 2025-11-05 (A = as_of, though L is later): A and B end tied at 10; on
 * 2025-11-03 GONE_NEGATIVE's 8 is ahead of A's 7 (it drops to 0 the next day and has no file,
 * but it counts in the ranks while its sum is greater); A's row after as_of does not count.
 * Season 2 live, A = 2025-11-19 (A's 1000 on 2025-11-21 comes after L): on 2025-11-16 the ranks
 * are 1, 2, 2, 4 (LEADER 20, A and B 10, C 5); D's sum drops to -2 (rank null) and comes back to
 * 1; E starts late (2025-11-18); F's first row, of 0 points, makes its F 2025-11-15; A has no row
 * on 2025-11-17 (points 0). ONLY_AFTER has rows only after A: no file. Season 3 has points only
 * after L. B's rows are written in upper case.
 */
const TABLES = {
  balances: [balance({ address: A, block_number: 1, balance: '1' })],
  seasons: [
    { season: 1, as_of: '2025-11-05' },
    { season: 2, as_of: null },
    { season: 3, as_of: null },
  ],
  points: [
    { season: 1, date: '2025-11-03', address: A, points: 7 },
    { season: 1, date: '2025-11-05', address: A, points: 3 },
    { season: 1, date: '2025-11-06', address: A, points: 50 },
    { season: 1, date: '2025-11-04', address: upper(B), points: 10 },
    { season: 1, date: '2025-11-03', address: GONE_NEGATIVE, points: 8 },
    { season: 1, date: '2025-11-04', address: GONE_NEGATIVE, points: -8 },
    { season: 2, date: '2025-11-16', address: LEADER, points: 20 },
    { season: 2, date: '2025-11-16', address: A, points: 10 },
    { season: 2, date: '2025-11-18', address: A, points: 5 },
    { season: 2, date: '2025-11-19', address: A, points: 1 },
    { season: 2, date: '2025-11-21', address: A, points: 1000 },
    { season: 2, date: '2025-11-16', address: upper(B), points: 10 },
    { season: 2, date: '2025-11-17', address: B, points: 3 },
    { season: 2, date: '2025-11-19', address: B, points: 1 },
    { season: 2, date: '2025-11-19', address: upper(B), points: 2 },
    { season: 2, date: '2025-11-16', address: C, points: 5 },
    { season: 2, date: '2025-11-17', address: C, points: 10 },
    { season: 2, date: '2025-11-16', address: D, points: 4 },
    { season: 2, date: '2025-11-17', address: D, points: -6 },
    { season: 2, date: '2025-11-18', address: D, points: 3 },
    { season: 2, date: '2025-11-18', address: E, points: 7 },
    { season: 2, date: '2025-11-15', address: F, points: 0 },
    { season: 2, date: '2025-11-17', address: F, points: 2 },
    { season: 2, date: '2025-11-21', address: ONLY_AFTER, points: 50 },
    { season: 3, date: '2025-11-21', address: C, points: 5 },
  ] as Row[],
};

/** The fixture's tree and its manifest, built once for the tests that only read them. */
let fixture: Promise<Built> | null = null;
const built = () => (fixture ??= build(TABLES, { manifest: true }));

type Day = [date: string, points: number, totalPoints: number, rank: number | null];
const season = (number: number, asOf: string, days: Day[]) => ({
  season: number,
  asOf,
  days: days.map(([date, points, totalPoints, rank]) => ({ date, points, totalPoints, rank })),
});
const s1 = (days: Day[]) => season(1, '2025-11-05', days);
const s2 = (days: Day[]) => season(2, '2025-11-19', days);

const EXPECTED: Record<string, unknown> = {
  [A]: {
    seasons: [
      // GONE_NEGATIVE's 8 is ahead on 2025-11-03; tied with B at A = as_of; the row after as_of does not count.
      s1([
        ['2025-11-03', 7, 7, 2],
        ['2025-11-04', 0, 7, 2],
        ['2025-11-05', 3, 10, 1],
      ]),
      // No row on 2025-11-17: points 0, the same total; the row after L does not count.
      s2([
        ['2025-11-16', 10, 10, 2],
        ['2025-11-17', 0, 10, 4],
        ['2025-11-18', 5, 15, 2],
        ['2025-11-19', 1, 16, 2],
      ]),
    ],
  },
  [B]: {
    seasons: [
      s1([
        ['2025-11-04', 10, 10, 1],
        ['2025-11-05', 0, 10, 1],
      ]),
      // Two rows on 2025-11-19, in two letter cases: they add up.
      s2([
        ['2025-11-16', 10, 10, 2],
        ['2025-11-17', 3, 13, 3],
        ['2025-11-18', 0, 13, 4],
        ['2025-11-19', 3, 16, 2],
      ]),
    ],
  },
  [LEADER]: {
    seasons: [
      s2([
        ['2025-11-16', 20, 20, 1],
        ['2025-11-17', 0, 20, 1],
        ['2025-11-18', 0, 20, 1],
        ['2025-11-19', 0, 20, 1],
      ]),
    ],
  },
  // Ranks 1, 2, 2, 4 on 2025-11-16.
  [C]: {
    seasons: [
      s2([
        ['2025-11-16', 5, 5, 4],
        ['2025-11-17', 10, 15, 2],
        ['2025-11-18', 0, 15, 2],
        ['2025-11-19', 0, 15, 4],
      ]),
    ],
  },
  // Below 0 on 2025-11-17: no rank that day; back above 0 the next.
  [D]: {
    seasons: [
      s2([
        ['2025-11-16', 4, 4, 5],
        ['2025-11-17', -6, -2, null],
        ['2025-11-18', 3, 1, 7],
        ['2025-11-19', 0, 1, 7],
      ]),
    ],
  },
  // A late starter: its days start at its first row.
  [E]: {
    seasons: [
      s2([
        ['2025-11-18', 7, 7, 5],
        ['2025-11-19', 0, 7, 5],
      ]),
    ],
  },
  // Its first row has 0 points: F is that row's day, with a total of 0 and no rank until it has points.
  [F]: {
    seasons: [
      s2([
        ['2025-11-15', 0, 0, null],
        ['2025-11-16', 0, 0, null],
        ['2025-11-17', 2, 2, 5],
        ['2025-11-18', 0, 2, 6],
        ['2025-11-19', 0, 2, 6],
      ]),
    ],
  },
};

test("every participant's history: each day from F to A, its points, running total and rank", async () => {
  const tree = await built();
  for (const [address, document] of Object.entries(EXPECTED)) {
    const text = tree.text(history(address));
    assert.is(text, JSON.stringify(document), address);
    PointsHistorySchema.parse(JSON.parse(text));
  }
  // A history file exactly where there is a points file: none for ONLY_AFTER (rows after A only),
  // GONE_NEGATIVE (its sum ends at 0), nor an address written in upper case.
  const folders = fs.readdirSync(path.join(tree.out, 'v1/address'));
  assert.equal(folders.filter((address) => tree.exists(history(address))).sort(), Object.keys(EXPECTED).sort());
  assert.equal(folders.filter((address) => tree.exists(standing(address))).sort(), Object.keys(EXPECTED).sort());
  for (const address of [ONLY_AFTER, GONE_NEGATIVE, upper(B)]) assert.not.ok(tree.exists(`v1/address/${address}`), address);
  // The folder of a participant without balances: its points file and the history beside it.
  assert.equal(fs.readdirSync(path.join(tree.out, `v1/address/${B}`)).sort(), ['points', 'points.json']);
  assert.equal(fs.readdirSync(path.join(tree.out, `v1/address/${B}/points`)), ['history.json']);
  assert.equal(fs.readdirSync(path.join(tree.out, `v1/address/${A}`)).sort(), ['points', 'points.json', 'portfolio', 'portfolio.json']);
  assert.is(tree.text('_snapshot/no-history/points-history.json'), '{"seasons":[]}');
});

test('the row of A equals the points standing: totalPoints, rank and dailyRate, byte for byte', async () => {
  const tree = await built();
  for (const address of Object.keys(EXPECTED)) {
    const document = JSON.parse(tree.text(history(address)));
    const points = JSON.parse(tree.text(standing(address)));
    assert.equal(
      document.seasons.map((one: any) => {
        const last = one.days.at(-1);
        return [one.season, one.asOf, last.date, last.totalPoints, last.rank, last.points];
      }),
      points.seasons.map((one: any) => [one.season, one.asOf, one.asOf, one.totalPoints, one.rank, one.dailyRate]),
      address,
    );
    const failures: string[] = [];
    verifyPointsHistory(history(address), document, points, (message) => failures.push(message));
    assert.equal(failures, [], address);
  }
});

test("exact sums: the running totals are the leaderboard's exact sums, rounded once a day", async () => {
  // 0.1 + 0.2 is 0.30000000000000004 as doubles, as the exact sum of the two doubles rounded once;
  // 1e16 + 1 + 1 loses both ones added one by one, not as the exact sum. Season 2: exact sums
  // half-way between two doubles round to the even one, down for a day's sum (2^53 + 33) and up
  // for a running sum (2^53 + 95), on values summed in SQL (magnitudes close enough).
  const tree = await build({
    seasons: [
      { season: 1, as_of: null },
      { season: 2, as_of: null },
    ],
    points: [
      { season: 1, date: '2025-11-18', address: A, points: 0.1 },
      { season: 1, date: '2025-11-19', address: A, points: 0.2 },
      { season: 1, date: '2025-11-20', address: A, points: -0.3 },
      { season: 1, date: '2025-11-18', address: B, points: 1e16 },
      { season: 1, date: '2025-11-19', address: B, points: 1 },
      { season: 1, date: '2025-11-19', address: B, points: 1 },
      // Magnitudes far apart (summed outside SQL's HUGEINT): 7e22 and 2^-60.
      { season: 1, date: '2025-11-18', address: C, points: 7e22 },
      { season: 1, date: '2025-11-19', address: C, points: 2 ** -60 },
      { season: 1, date: '2025-11-20', address: C, points: -7e22 },
      { season: 2, date: '2025-11-18', address: D, points: 2 ** 53 - 1 },
      { season: 2, date: '2025-11-18', address: D, points: 34 },
      { season: 2, date: '2025-11-19', address: D, points: 62 },
    ],
  });
  assert.equal(tree.json(history(A)), {
    seasons: [
      season(1, '2025-11-20', [
        ['2025-11-18', 0.1, 0.1, 3],
        ['2025-11-19', 0.2, 0.30000000000000004, 3],
        ['2025-11-20', -0.3, 2.7755575615628914e-17, 2],
      ]),
    ],
  });
  assert.equal(tree.json(history(B)), {
    seasons: [
      season(1, '2025-11-20', [
        ['2025-11-18', 1e16, 1e16, 2],
        ['2025-11-19', 2, 10000000000000002, 2],
        ['2025-11-20', 0, 10000000000000002, 1],
      ]),
    ],
  });
  assert.equal(tree.json(history(C)), {
    seasons: [
      season(1, '2025-11-20', [
        ['2025-11-18', 7e22, 7e22, 1],
        ['2025-11-19', 2 ** -60, 7e22, 1],
        ['2025-11-20', -7e22, 2 ** -60, 3],
      ]),
    ],
  });
  assert.equal(tree.json(history(D)), {
    seasons: [
      season(2, '2025-11-19', [
        ['2025-11-18', 2 ** 53 + 32, 2 ** 53 + 32, 1],
        ['2025-11-19', 62, 2 ** 53 + 96, 1],
      ]),
    ],
  });
  for (const address of [A, B, C, D]) {
    const last = tree.json(history(address)).seasons[0].days.at(-1);
    const row = tree.json(standing(address)).seasons[0];
    assert.equal([last.totalPoints, last.rank, last.points], [row.totalPoints, row.rank, row.dailyRate], address);
  }
});

test('no seasons, or no points: no history files, and the no-history answer', async () => {
  const tree = await build({ balances: [balance({ address: A, block_number: 1, balance: '1' })] });
  assert.not.ok(tree.exists(history(A)));
  assert.is(fs.readFileSync(path.join(tree.out, '_snapshot/no-history/points-history.json'), 'utf8'), '{"seasons":[]}');
});

test("sharded: each history in its wallet's shard, ranks over every wallet of every shard, the union is the whole tree", async () => {
  const whole = await built();
  const union = new Map<string, string>();
  for (let k = 1; k <= 2; k++) {
    const shard = await build(TABLES, { shard: `${k}/2` });
    // A shard may hold no wallet at all (then it has no address folder).
    const folders = shard.exists('v1/address') ? fs.readdirSync(path.join(shard.out, 'v1/address')) : [];
    for (const address of folders) {
      assert.is(shard.exists(history(address)), shard.exists(standing(address)), address);
      if (!shard.exists(history(address))) continue;
      assert.not.ok(union.has(address), `${address} in two shards`);
      union.set(address, fileHash(path.join(shard.out, history(address))));
    }
  }
  const expected = Object.keys(EXPECTED).map((address) => [address, fileHash(path.join(whole.out, history(address)))]);
  assert.equal([...union].sort(), expected.sort());
});

test('--manifest lists every history file with the hash of its bytes', async () => {
  const { out, manifest } = await built();
  const lines = fs
    .readFileSync(manifest!, 'utf8')
    .trim()
    .split('\n')
    .map((line) => [line.slice(66), line.slice(0, 64)] as const);
  const listed = lines.filter(([file]) => file.endsWith('/points/history.json')).map(([file]) => file);
  assert.equal(listed.sort(), Object.keys(EXPECTED).map(history).sort());
  for (const [file, hash] of lines) assert.is(fileHash(path.join(out, file)), hash, file);
  assert.ok(lines.some(([file]) => file === '_snapshot/no-history/points-history.json'));
});

test.run();
