/**
 * The points standing of every participant (GET /v1/address/{a}/points) and the seasons index
 * (GET /v1/seasons), now pinned: L = 2025-11-20.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { A, B, C, balance, build, fileHash, thrown, type Built, type Row } from './helpers/fixtures.ts';
import { UserError } from '../core/errors.ts';
import { verifyTree } from '../tree/verify.ts';
import { PointsStandingSchema } from '../schemas/points.ts';
import { SeasonsIndexSchema } from '../schemas/seasons.ts';

const D = `0x${'d'.repeat(40)}`;
const E = `0x${'e'.repeat(40)}`;
const F = `0x${'f'.repeat(40)}`;
const G = `0x${'7'.repeat(40)}`;
const filler = (i: number) => `0x${i.toString(16).padStart(40, '0')}`;
const points = (address: string) => `v1/address/${address}/points.json`;

/**
 * Season 1 frozen at 2025-11-05: A and B tie at 10, C (written in two letter cases) has 4, E's
 * points come after as_of, F's add up to 0. Season 2 live, its latest day 2025-11-19: D leads,
 * 104 fillers with 1000 down to 897, E ties the last filler at 897 (ranks 105, outside the first
 * 100), A has 1 (and 1000 after L, which does not count). Season 3 has points only after L;
 * season 4 is frozen before any of its points. A, D and G have balances; B, C, E and the fillers
 * do not; G has no points.
 */
const TABLES = {
  balances: [A, D, G].map((address, i) => balance({ address, block_number: i + 1, balance: '1' })),
  seasons: [
    { season: 1, as_of: '2025-11-05' },
    { season: 2, as_of: null },
    { season: 3, as_of: null },
    { season: 4, as_of: '2025-10-01' },
  ],
  points: [
    { season: 1, date: '2025-11-03', address: A, points: 7 },
    { season: 1, date: '2025-11-05', address: A, points: 3 },
    { season: 1, date: '2025-11-04', address: B.toUpperCase().replace('0X', '0x'), points: 10 },
    { season: 1, date: '2025-11-05', address: C.toUpperCase().replace('0X', '0x'), points: 2 },
    { season: 1, date: '2025-11-05', address: C, points: 2 },
    { season: 1, date: '2025-11-06', address: E, points: 50 },
    { season: 1, date: '2025-11-01', address: F, points: 5 },
    { season: 1, date: '2025-11-02', address: F, points: -5 },
    ...Array.from({ length: 104 }, (_, i) => ({ season: 2, date: '2025-11-19', address: filler(i), points: 1000 - i })),
    { season: 2, date: '2025-11-19', address: D, points: 2000 },
    { season: 2, date: '2025-11-18', address: E, points: 897 },
    { season: 2, date: '2025-11-19', address: A, points: 1 },
    { season: 2, date: '2025-11-21', address: A, points: 1000 },
    { season: 3, date: '2025-11-21', address: B, points: 5 },
    { season: 4, date: '2025-11-01', address: A, points: 5 },
  ] as Row[],
};

/** The fixture's tree and its manifest, built once for the tests that only read them. */
let fixture: Promise<Built> | null = null;
const built = () => (fixture ??= build(TABLES, { manifest: true }));

const s1 = { season: 1, asOf: '2025-11-05', totalParticipants: 3 };
const s2 = { season: 2, asOf: '2025-11-19', totalParticipants: 107 };
const row = (season: typeof s1, rank: number, totalPoints: number, dailyRate: number) => ({
  season: season.season,
  asOf: season.asOf,
  rank,
  totalPoints,
  dailyRate,
  totalParticipants: season.totalParticipants,
});

test('every participant has its rank, totals, asOf and totalParticipants per season, seasons ascending', async () => {
  const tree = await built();
  const expected: Record<string, unknown> = {
    // Tied with B in season 1 (rank 1), last of 107 in season 2; its row after L does not count.
    [A]: { seasons: [row(s1, 1, 10, 3), row(s2, 107, 1, 1)] },
    // No balances: a folder holding only its points file. Season 3's points come after L.
    [B]: { seasons: [row(s1, 1, 10, 0)] },
    // Written in two letter cases in points.parquet: one wallet, lower case.
    [C]: { seasons: [row(s1, 3, 4, 4)] },
    // A participant of season 2 only.
    [D]: { seasons: [row(s2, 1, 2000, 2000)] },
    // Season 1's points come after its as_of; in season 2 tied with the last filler, outside the first 100.
    [E]: { seasons: [row(s2, 105, 897, 0)] },
    [filler(0)]: { seasons: [row(s2, 2, 1000, 1000)] },
    [filler(98)]: { seasons: [row(s2, 100, 902, 902)] },
    [filler(103)]: { seasons: [row(s2, 105, 897, 897)] },
  };
  for (const [address, document] of Object.entries(expected)) {
    const text = fs.readFileSync(path.join(tree.out, points(address)), 'utf8');
    assert.is(text, JSON.stringify(document), address);
    PointsStandingSchema.parse(JSON.parse(text));
  }
  // Its points files only: the standing and, in points/, its history.
  assert.equal(fs.readdirSync(path.join(tree.out, `v1/address/${B}`)).sort(), ['points', 'points.json']);
  // F's points add up to 0 and G has none: no points file (G keeps its portfolio files).
  assert.not.ok(tree.exists(`v1/address/${F}`));
  assert.equal(fs.readdirSync(path.join(tree.out, `v1/address/${G}`)).sort(), ['portfolio', 'portfolio.json']);
  assert.not.ok(tree.exists(points(C.toUpperCase().replace('0X', '0x'))));
  assert.is(fs.readFileSync(path.join(tree.out, '_snapshot/no-history/points.json'), 'utf8'), '{"seasons":[]}');
  // One file per participant: 3 in season 1, 107 in season 2, A in both.
  const files = fs.readdirSync(path.join(tree.out, 'v1/address')).filter((address) => tree.exists(points(address)));
  assert.is(files.length, 3 + 107 - 1);
});

test('the first 100 of the leaderboard have the same numbers in their points files', async () => {
  const tree = await built();
  const board = tree.json('v1/leaderboard/s2.json');
  assert.is(board.entries.length, 100);
  for (const entry of board.entries) {
    const standing = tree.json(points(entry.user)).seasons.find((one: { season: number }) => one.season === 2);
    assert.equal(standing, {
      season: 2,
      asOf: board.asOf,
      rank: entry.rank,
      totalPoints: entry.totalPoints,
      dailyRate: entry.dailyRate,
      totalParticipants: board.totalParticipants,
    });
  }
  assert.not.ok(board.entries.some((entry: { user: string }) => entry.user === E));
});

test("the seasons index: every known season by season, frozen when as_of is set, the leaderboards' values", async () => {
  const tree = await built();
  const index = tree.json('v1/seasons.json');
  SeasonsIndexSchema.parse(index);
  assert.equal(index, {
    seasons: [
      { season: 1, asOf: '2025-11-05', frozen: true, totalParticipants: 3 },
      { season: 2, asOf: '2025-11-19', frozen: false, totalParticipants: 107 },
      // Points only after L; frozen before any of its points: both without data.
      { season: 3, asOf: null, frozen: false, totalParticipants: 0 },
      { season: 4, asOf: null, frozen: true, totalParticipants: 0 },
    ],
  });
  for (const season of index.seasons) {
    const board = tree.json(`v1/leaderboard/s${season.season}.json`);
    assert.equal([season.asOf, season.totalParticipants], [board.asOf, board.totalParticipants]);
  }
});

test('no seasons at all: an empty index, and no points files', async () => {
  const tree = await build({ balances: [balance({ address: A, block_number: 1, balance: '1' })] });
  assert.is(fs.readFileSync(path.join(tree.out, 'v1/seasons.json'), 'utf8'), '{"seasons":[]}');
  assert.not.ok(tree.exists(points(A)));
  assert.equal((await verifyTree(tree.out)).failures, []);
});

test('the tree verifies; tampered points files and seasons index are each caught', async () => {
  const tree = await built();
  assert.equal((await verifyTree(tree.out)).failures, []);
  /** Verifies with one file changed (or removed: change returns null), then puts it back. */
  const failuresWith = async (file: string, change: (document: any) => unknown) => {
    const target = path.join(tree.out, file);
    const original = fs.readFileSync(target, 'utf8');
    const changed = change(JSON.parse(original));
    if (changed === null) fs.rmSync(target);
    else fs.writeFileSync(target, JSON.stringify(changed));
    try {
      return (await verifyTree(tree.out)).failures.join('\n');
    } finally {
      fs.writeFileSync(target, original);
    }
  };
  const withSeason2 = (change: (standing: any) => void) => (document: any) => {
    change(document.seasons.find((one: { season: number }) => one.season === 2));
    return document;
  };
  assert.match(
    await failuresWith(
      points(D),
      withSeason2((one) => (one.rank = 2)),
    ),
    `${points(D)}: season 2: rank 2, totalPoints 2000, dailyRate 2000; the leaderboard has 1, 2000, 2000`,
  );
  assert.match(
    await failuresWith(
      points(D),
      withSeason2((one) => (one.dailyRate = 1)),
    ),
    `${points(D)}: season 2: rank 1, totalPoints 2000, dailyRate 1`,
  );
  assert.match(
    await failuresWith(points(D), () => null),
    `${points(D)}: missing, or without season 2, for a wallet in the season's leaderboard`,
  );
  // Outside the first 100: the count of files, and every rank against all participants' totals.
  // A whole tree (its records say so) tampered with: the failure, and no hint about shards.
  const oneFileGone = await failuresWith(points(E), () => null);
  assert.match(oneFileGone, /season 2: 106 points files list it, its leaderboard counts 107 participants(\n|$)/);
  assert.not.match(oneFileGone, '--shard');
  assert.match(
    await failuresWith(
      points(E),
      withSeason2((one) => (one.rank = 106)),
    ),
    'season 2: a participant with totalPoints 897 has rank 106, expected 105',
  );
  assert.match(
    await failuresWith(
      points(E),
      withSeason2((one) => (one.totalPoints = 903)),
    ),
    `${points(E)}: season 2: totalPoints 903 puts the wallet in the leaderboard's first 100, which does not list it`,
  );
  assert.match(
    await failuresWith(
      points(E),
      withSeason2((one) => (one.asOf = '2025-11-20')),
    ),
    `${points(E)}: season 2 has asOf 2025-11-20 and 107 participants, its leaderboard 2025-11-19 and 107`,
  );
  assert.match(
    await failuresWith(points(B), () => ({ seasons: [] })),
    `${points(B)}: a wallet that takes part in no season has no points file`,
  );
  assert.match(
    await failuresWith(points(A), (document) => ({ seasons: document.seasons.reverse() })),
    `${points(A)}: seasons are not in ascending order`,
  );
  assert.match(
    await failuresWith('v1/seasons.json', (index) => {
      index.seasons[1].totalParticipants = 106;
      return index;
    }),
    'v1/seasons.json: season 2 has asOf 2025-11-19 and 106 participants, its leaderboard 2025-11-19 and 107',
  );
  assert.match(
    await failuresWith('v1/seasons.json', (index) => ({ seasons: index.seasons.slice(1) })),
    'v1/seasons.json: lists seasons 2, 3, 4, expected the known seasons 1, 2, 3, 4 in order',
  );
  assert.match(
    await failuresWith('_snapshot/no-history/points.json', () => ({ seasons: [row(s1, 1, 10, 0)] })),
    '_snapshot/no-history/points.json: must be {"seasons":[]}',
  );
  assert.match(await failuresWith('v1/seasons.json', () => null), 'v1/seasons.json: missing');
});

test("sharded: each participant's file in its wallet's shard, the union is the whole tree, each shard verifies as that shard", async () => {
  const whole = await built();
  const union = new Map<string, string>();
  for (let k = 1; k <= 2; k++) {
    const shard = await build(TABLES, { shard: `${k}/2` });
    for (const address of fs.readdirSync(path.join(shard.out, 'v1/address'))) {
      if (!shard.exists(points(address))) continue;
      assert.not.ok(union.has(address), `${address} in two shards`);
      union.set(address, fileHash(path.join(shard.out, points(address))));
    }
    assert.equal((await verifyTree(shard.out, { shard: { index: k, count: 2 } })).failures, [], `shard ${k}`);
    // Without --shard, the build's records in the tree say which shard it is.
    const recorded = await verifyTree(shard.out);
    assert.equal([recorded.failures, recorded.coverage], [[], `shard ${k} of 2`]);
    // A wrong --shard is refused once, naming the shard the records say the tree is.
    const refused = await thrown(() => verifyTree(shard.out, { shard: { index: 3 - k, count: 2 } }));
    assert.instance(refused, UserError);
    assert.is(
      refused.message,
      `--shard ${3 - k}/2 does not match ${shard.out}: it is shard ${k} of 2 (its records in _snapshot/manifests/ say so); verify it with --shard ${k}/2`,
    );
    assert.is(
      (await thrown(() => verifyTree(shard.out, { shard: { index: k, count: 4 } }))).message,
      `--shard ${k}/4 does not match ${shard.out}: it is shard ${k} of 2 (its records in _snapshot/manifests/ say so); verify it with --shard ${k}/2`,
    );
    // Without records to tell, every wallet of another shard is a failure of its own.
    fs.rmSync(path.join(shard.out, '_snapshot/manifests'), { recursive: true });
    assert.match((await verifyTree(shard.out, { shard: { index: 3 - k, count: 2 } })).failures.join('\n'), `is not in shard ${3 - k} of 2`);
  }
  assert.is(
    (await thrown(() => verifyTree(whole.out, { shard: { index: 1, count: 2 } }))).message,
    `--shard 1/2 does not match ${whole.out}: it is the whole tree (its records in _snapshot/manifests/ say so); verify it without --shard`,
  );
  const expected = new Map(
    fs
      .readdirSync(path.join(whole.out, 'v1/address'))
      .filter((address) => whole.exists(points(address)))
      .map((address) => [address, fileHash(path.join(whole.out, points(address)))]),
  );
  assert.equal([...union].sort(), [...expected].sort());
});

test('--manifest lists every points file with the hash of its bytes, in address order', async () => {
  const { out, manifest } = await built();
  const lines = fs
    .readFileSync(manifest!, 'utf8')
    .trim()
    .split('\n')
    .map((line) => [line.slice(66), line.slice(0, 64)] as const);
  const listed = lines.filter(([file]) => file.endsWith('/points.json') && file.startsWith('v1/address/'));
  assert.is(listed.length, 109);
  assert.equal(
    listed.map(([file]) => file),
    listed.map(([file]) => file).sort(),
  );
  for (const [file, hash] of lines) assert.is(fileHash(path.join(out, file)), hash, file);
  assert.ok(lines.some(([file]) => file === 'v1/seasons.json'));
  assert.ok(lines.some(([file]) => file === '_snapshot/no-history/points.json'));
});

test.run();
