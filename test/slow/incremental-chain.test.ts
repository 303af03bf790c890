/**
 * A chain of nights, each prepared `--since` the one before (docs/incremental-nights.md), each
 * export cut at its own day and holding the whole history: a new day, a missed night with a late
 * balance event and a corrected price, a backdated new wallet, a wallet whose points went to 0
 * and come back (which no previous night's rows can serve: the night is made whole), a changed
 * shard count, a removed past row, a changed multiplier. Every shard folder of every night builds
 * the tree `build --input --shard K/N` builds from the same export, byte for byte.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import { tempDir, type Row, type Tables } from '../helpers/fixtures.ts';
import { CHAIN_WALLETS, chainExport, expectShardTreesAsBuilt, prepareChainNight, type ChainNight } from '../helpers/chain.ts';
import type { NightKind } from '../../schemas/night-kind.ts';

const RETURNING = `0x${'e'.repeat(40)}`;
const BACKDATED = `0x${'d'.repeat(40)}`;

type Change = NonNullable<Parameters<typeof chainExport>[1]>;
/** Every change made so far: an export keeps what earlier nights' exports restated. */
const made: Change[] = [];

/**
 * Every night's export: a wallet that earned 5 points then lost them (not a participant), a row
 * dated ahead of its night, and every change of the nights before and of this one.
 */
function exportOf(last: string, change?: Change): Tables {
  if (change) made.push(change);
  return chainExport(last, (t) => {
    t.points.push(
      { season: 2, date: '2025-10-02', address: RETURNING, points: 5 },
      { season: 2, date: '2025-10-03', address: RETURNING, points: -5 },
    );
    t.points.push({ season: 2, date: '2025-11-12', address: CHAIN_WALLETS[1]!, points: 0.5 });
    for (const each of made) each(t);
  });
}

const kindOf = (night: ChainNight): string => {
  const kind: NightKind = night.summary.nightKind;
  return kind.kind === 'full' ? `full: ${kind.why}` : `incremental from ${kind.fromDay} (${kind.daysRecomputed} days): ${kind.why}`;
};

test('a chain of nights: each incremental night builds the trees of the whole build', async () => {
  const root = tempDir();
  const night = path.join(root, 'night');
  const steps: { last: string; shards: number; tables: Tables; expect: string | RegExp }[] = [
    { last: '2025-11-10', shards: 2, tables: exportOf('2025-11-10'), expect: /^full: .*holds no night\.json|^full: no previous night/ },
    {
      last: '2025-11-11',
      shards: 2,
      tables: exportOf('2025-11-11'),
      expect: 'incremental from 2025-11-11 (1 days): 1 new day',
    },
    {
      // A missed night (two new days), a late balance event of 2025-09-20 and a price of 2025-09-25 corrected.
      last: '2025-11-13',
      shards: 2,
      tables: exportOf('2025-11-13', (t) => {
        t.balances.push({
          chain_id: 1,
          log_index: 3,
          tx_hash: '0xlate',
          timestamp: Date.parse('2025-09-20T23:30:00-04:00') / 1000,
          address: CHAIN_WALLETS[4]!,
          token: 'uty',
          balance: '42',
          block_number: 999_999,
        });
        t.prices.find((row) => row.date === '2025-09-25')!.usd_price = 3.5;
      }),
      expect:
        'incremental from 2025-09-20 (55 days): 2 new days; balances.parquet changed from 2025-09-20; prices.parquet changed from 2025-09-25',
    },
    {
      last: '2025-11-14',
      shards: 2,
      tables: exportOf('2025-11-14', (t) =>
        t.points.push(
          { season: 1, date: '2025-09-05', address: BACKDATED, points: 2 },
          { season: 2, date: '2025-11-14', address: BACKDATED, points: 1 },
        ),
      ),
      expect: 'incremental from 2025-09-05 (71 days): 1 new day; points.parquet changed from 2025-09-05',
    },
    {
      last: '2025-11-15',
      shards: 2,
      tables: exportOf('2025-11-15', (t) => t.points.push({ season: 2, date: '2025-11-15', address: RETURNING, points: 1 })),
      expect: /^full: 1 wallet-season became participants with days before 2025-11-15/,
    },
    {
      last: '2025-11-16',
      shards: 3,
      tables: exportOf('2025-11-16'),
      expect: 'full: the previous night was cut into 2 shards, this one into 3',
    },
    {
      last: '2025-11-17',
      shards: 3,
      tables: exportOf('2025-11-17', (t) =>
        t.points.splice(
          t.points.findIndex((row: Row) => row.date === '2025-10-01'),
          1,
        ),
      ),
      expect: 'incremental from 2025-10-01 (48 days): 1 new day; points.parquet changed from 2025-10-01',
    },
    {
      last: '2025-11-18',
      shards: 3,
      tables: exportOf(
        '2025-11-18',
        (t) =>
          ((t as Tables).multipliers = [
            { season: 2, position: 'hold_uty', multiplier: 2, first_day: '2025-10-01', last_day: '2025-12-31' },
          ]),
      ),
      expect: 'full: multipliers.parquet changed: a change that belongs to no day',
    },
  ];
  for (const [i, step] of steps.entries()) {
    const prepared = await prepareChainNight(root, `n${i + 1}`, step.last, step.tables, { shards: step.shards, since: night, out: night });
    if (typeof step.expect === 'string') assert.is(kindOf(prepared), step.expect, `night ${i + 1}`);
    else assert.match(kindOf(prepared), step.expect, `night ${i + 1}`);
    await expectShardTreesAsBuilt(prepared);
  }
});

test.run();
