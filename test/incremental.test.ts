/**
 * Incremental nights (docs/incremental-nights.md): `prepare --since PREV` reuses the previous
 * night's days that did not change, and every shard folder still builds the tree the whole build
 * builds; what changed is found exactly; a previous night that cannot be trusted is never used.
 * The long chain of nights (restatements, late events, a missed night, a backdated wallet, a
 * changed shard count) is test/slow/incremental-chain.test.ts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { balance, buildReusingThreads, tempDir, thrown, type Tables } from './helpers/fixtures.ts';
import { buildReportMarkdown } from '../build/report.ts';
import { CHAIN_WALLETS, chainExport, expectShardTreesAsBuilt, nightOf, prepareChainNight } from './helpers/chain.ts';
import { UserError } from '../core/errors.ts';
import { NIGHT_FILE, NIGHT_FORMAT } from '../build/night-state.ts';
import { readPreparedFacts } from '../build/prepared-folder.ts';

test('a night one day after its previous one reuses it, and a restated past day is recomputed from that day', async () => {
  const root = tempDir();
  const first = await prepareChainNight(root, 'n1', '2025-11-10', chainExport('2025-11-10'), { shards: 2 });
  assert.equal(first.summary.nightKind, { kind: 'full', why: 'no --since given' });
  // Nothing of the prepare but the night stays in NIGHT: no lock, no work folder.
  assert.equal(fs.readdirSync(path.join(root, 'n1')).sort(), [
    'accounts.parquet',
    'input-days.parquet',
    NIGHT_FILE,
    'points-totals.parquet',
    'shard-1-of-2',
    'shard-2-of-2',
  ]);

  const second = await prepareChainNight(root, 'n2', '2025-11-11', chainExport('2025-11-11'), { shards: 2, since: path.join(root, 'n1') });
  assert.equal(second.summary.nightKind, {
    kind: 'incremental',
    from: `${first.now}/${JSON.parse(fs.readFileSync(path.join(root, 'n1', NIGHT_FILE), 'utf8')).inputs.slice(0, 12)}`,
    daysRecomputed: 1,
    fromDay: '2025-11-11',
    why: '1 new day',
  });
  await expectShardTreesAsBuilt(second);
  // A shard's build says, in its report, which kind of night prepared its folder.
  const shard = await buildReusingThreads({
    prepared: second.summary.folders[0]!,
    out: path.join(tempDir(), 'tree'),
    progress: 'quiet',
    threads: 1,
  });
  assert.equal(shard.nightKind, second.summary.nightKind);
  assert.match(
    buildReportMarkdown(shard, 'tree'),
    `| prepared night | incremental from ${second.summary.nightKind.kind === 'incremental' ? second.summary.nightKind.from : ''}: 1 day recomputed from 2025-11-11 (1 new day) |`,
  );

  // A points row of 2025-09-12 restated, a row of a season-1 day: recomputed from there, in place (--out is --since).
  const restated = chainExport('2025-11-12', (t) => (t.points.find((row) => row.date === '2025-09-12')!.points = 1.375));
  const third = await prepareChainNight(root, 'n2-again', '2025-11-12', restated, {
    shards: 2,
    since: path.join(root, 'n2'),
    out: path.join(root, 'n2'),
  });
  assert.equal(third.summary.nightKind.kind, 'incremental');
  assert.equal(
    third.summary.nightKind.kind === 'incremental' && [third.summary.nightKind.fromDay, third.summary.nightKind.daysRecomputed],
    ['2025-09-12', 62],
  );
  assert.match(third.summary.nightKind.why, /points\.parquet changed from 2025-09-12/);
  await expectShardTreesAsBuilt(third);
});

test('a previous night that cannot be trusted: missing, of another shard count, layout or a later --now, full; altered, refused by name', async () => {
  const root = tempDir();
  const base = await prepareChainNight(root, 'base', '2025-10-20', chainExport('2025-10-20'), { shards: 2 });
  const missing = await prepareChainNight(root, 'a', '2025-10-21', chainExport('2025-10-21'), {
    shards: 2,
    since: path.join(root, 'nowhere'),
  });
  assert.equal(missing.summary.nightKind, { kind: 'full', why: `no previous night at ${path.join(root, 'nowhere')}` });
  const otherCount = await prepareChainNight(root, 'b', '2025-10-21', chainExport('2025-10-21'), {
    shards: 3,
    since: path.join(root, 'base'),
  });
  assert.equal(otherCount.summary.nightKind, { kind: 'full', why: 'the previous night was cut into 2 shards, this one into 3' });
  const earlier = await prepareChainNight(root, 'c', '2025-10-19', chainExport('2025-10-19'), {
    shards: 2,
    since: path.join(root, 'base'),
  });
  assert.equal(earlier.summary.nightKind, {
    kind: 'full',
    why: `the previous night's build instant ${base.now} is later than this one's ${earlier.now}`,
  });
  const tokens = await prepareChainNight(
    root,
    'd',
    '2025-10-21',
    chainExport('2025-10-21', (t) => (t.tokens[0]!.decimals = 6)),
    { shards: 2, since: path.join(root, 'base') },
  );
  assert.equal(tokens.summary.nightKind, { kind: 'full', why: 'tokens.parquet changed: a change that belongs to no day' });
  // A night of an earlier layout (night format 1), sealed as it was.
  const older = path.join(tempDir(), 'older');
  fs.cpSync(path.join(root, 'base'), older, { recursive: true });
  const { seal: _seal, ...record } = JSON.parse(fs.readFileSync(path.join(older, NIGHT_FILE), 'utf8'));
  const format1 = { ...record, format: 1 };
  const sealed = crypto.createHash('sha256').update(JSON.stringify(format1)).digest('hex');
  fs.writeFileSync(path.join(older, NIGHT_FILE), JSON.stringify({ ...format1, seal: sealed }));
  const layout = await prepareChainNight(root, 'f', '2025-10-21', chainExport('2025-10-21'), { shards: 2, since: older });
  assert.equal(layout.summary.nightKind, {
    kind: 'full',
    why: `the previous night's folder has another layout (night format 1; this release reads format ${NIGHT_FORMAT})`,
  });

  // Altered: a file changed, one added, one removed; refused before anything is written.
  const alterations: [string, (night: string) => string][] = [
    [
      'changed',
      (night) => {
        const file = path.join(night, 'shard-1-of-2', 'participants.parquet');
        fs.appendFileSync(file, 'x');
        return `${file} was changed`;
      },
    ],
    [
      'added',
      (night) => {
        const file = path.join(night, 'shard-2-of-2', 'notes.txt');
        fs.writeFileSync(file, 'x');
        return `${file} was not written by prepare`;
      },
    ],
    [
      'removed',
      (night) => {
        const file = path.join(night, 'input-days.parquet');
        fs.rmSync(file);
        return `${file} is missing`;
      },
    ],
  ];
  for (const [kind, alter] of alterations) {
    const previous = path.join(tempDir(), kind);
    fs.cpSync(path.join(root, 'base'), previous, { recursive: true });
    const says = alter(previous);
    const out = path.join(tempDir(), 'out');
    const error = await thrown(() =>
      prepareChainNight(root, `e-${kind}`, '2025-10-21', chainExport('2025-10-21'), { shards: 2, since: previous, out }),
    );
    assert.instance(error, UserError, kind);
    assert.is((error as UserError).exitCode, 1);
    assert.match(error.message, says);
    assert.match(error.message, /--full/);
    assert.not.ok(fs.existsSync(out), `${kind}: nothing written`);
  }
  assert.ok(CHAIN_WALLETS.length > 0);
});

test('an ordinary night writes its new day only: the earlier segments of balance rows and points histories are kept as they are', async () => {
  const root = tempDir();
  const night = path.join(root, 'night');
  await prepareChainNight(root, 'n1', '2025-11-10', chainExport('2025-11-10'), { shards: 2, out: night });
  const before = await readPreparedFacts(path.join(night, 'shard-1-of-2'));
  const inode = (file: string) => fs.statSync(path.join(night, 'shard-1-of-2', file)).ino;
  const kept = [...before.segments.balance_rows, ...before.segments.points_history_days].map((segment) => [
    segment.file,
    inode(segment.file),
  ]);
  const second = await prepareChainNight(root, 'n2', '2025-11-11', chainExport('2025-11-11'), { shards: 2, since: night, out: night });
  const after = await readPreparedFacts(path.join(night, 'shard-1-of-2'));
  const day = Math.round(Date.parse('2025-11-11T00:00:00Z') / 86_400_000);
  for (const table of ['balance_rows', 'points_history_days'] as const) {
    assert.equal(after.segments[table].slice(0, -1), before.segments[table], table);
    const newest = after.segments[table].at(-1)!;
    assert.equal([newest.from, newest.to], [day, day], `${table}: the new segment holds the new day`);
  }
  // Kept as they are: the same files (hard links into the night's own folder), not written again.
  // (The first test holds such a night's trees to the whole build's.)
  assert.equal(
    kept.map(([file]) => [file, inode(file as string)]),
    kept,
  );
  assert.equal(second.summary.nightKind.kind, 'incremental');
});

/** The refusal `build --input` makes of an export, and the one `prepare --since` makes of it. */
async function refusals(root: string, previous: string, name: string, tables: Tables): Promise<[Error, Error, string]> {
  const out = path.join(root, `${name}-out`);
  const prepared = await thrown(() => prepareChainNight(root, name, '2025-11-11', tables, { shards: 2, since: previous, out }));
  const built = await thrown(() =>
    buildReusingThreads({
      input: path.join(root, `${name}-input`),
      out: path.join(root, `${name}-tree`),
      now: nightOf('2025-11-11'),
      progress: 'quiet',
      threads: 1,
    }),
  );
  return [prepared, built, out];
}

test('a bad row on a day that changed is refused as build refuses it: the same message and exit code, the previous night untouched', async () => {
  const root = tempDir();
  const previous = path.join(root, 'n1');
  await prepareChainNight(root, 'n1', '2025-11-10', chainExport('2025-11-10'), { shards: 2 });
  const record = fs.readFileSync(path.join(previous, NIGHT_FILE), 'utf8');
  const newDay = Date.parse('2025-11-11T15:00:00Z') / 1000;
  const cases: [string, NonNullable<Parameters<typeof chainExport>[1]>, string][] = [
    [
      'a balance that is not an amount, on the new day',
      (t) => t.balances.push(balance({ address: CHAIN_WALLETS[0]!, block_number: 77_001, timestamp: newDay, balance: '12abc' })),
      'balances.parquet: column "balance": 1 row',
    ],
    [
      'a points address that is not one, on a restated past day',
      (t) => t.points.push({ season: 2, date: '2025-10-05', address: '0xZZ', points: 1 }),
      'points.parquet: column "address": 1 row',
    ],
    [
      'a balance timestamp out of range (a row without a day: the night is full)',
      (t) => t.balances.push(balance({ address: CHAIN_WALLETS[0]!, block_number: 77_002, timestamp: 10 ** 15, balance: '5' })),
      'balances.parquet: column "timestamp": 1 row',
    ],
    [
      "a new day's balance repeating the key of a row of an earlier day, at another time",
      (t) => {
        const earlier = t.balances[0]!;
        t.balances.push({ ...earlier, timestamp: newDay, balance: '999' });
      },
      'repeated with a different timestamp',
    ],
  ];
  for (const [i, [what, change, says]] of cases.entries()) {
    const [prepared, built, out] = await refusals(root, previous, `bad-${i}`, chainExport('2025-11-11', change));
    assert.instance(built, UserError, what);
    assert.instance(prepared, UserError, what);
    assert.match(built.message, says, what);
    assert.is(prepared.message, built.message, what);
    assert.is((prepared as UserError).exitCode, (built as UserError).exitCode, what);
    assert.not.ok(fs.existsSync(path.join(out, NIGHT_FILE)), `${what}: no night written`);
  }
  assert.is(fs.readFileSync(path.join(previous, NIGHT_FILE), 'utf8'), record);
});

test.run();
