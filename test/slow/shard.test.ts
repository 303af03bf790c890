/**
 * `build --shard K/N`: the union of the N shard trees is the unsharded tree, byte for byte; and
 * with more shards than wallets, the shards without a wallet, prepared or not, are the same trees.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import fs from 'node:fs';
import { A, B, C, SUB, balance, PINNED_NOW as now, tempDir, treeHashes, writeInputs } from '../helpers/fixtures.ts';
import { prepareNight } from '../../build/prepare.ts';
import { shardOf } from '../../core/shard.ts';
import { verifyTree } from '../../tree/verify.ts';
import { buildSnapshot } from '../../build/index.ts';
import { resolveBuildConfig } from '../../build/config.ts';
import { generateDataset } from '../../data/generate.ts';
import { addShardSummaries } from '../../tree/night-summary.ts';
import type { NightSummary } from '../../schemas/night-summary.ts';

test('4 shards, each started later the same day: disjoint wallets, identical shared files, union equal to the unsharded tree', async () => {
  const root = tempDir();
  const input = path.join(root, 'input');
  await generateDataset({
    outDir: input,
    wallets: 300,
    seed: 11,
    startDate: '2025-06-01',
    days: 120,
    seasonOneEnd: '2025-08-01',
    rowsPerWallet: 15,
  });
  const whole = path.join(root, 'whole');
  const summary = await buildSnapshot(resolveBuildConfig({ input, out: whole, now, progress: 'quiet' }));
  const expected = treeHashes(whole);

  // Each build records what it wrote, and its night's summary, in files of its own
  // (_snapshot/manifests/K-of-N.*, _snapshot/night/K-of-N.json): the rest of the union is the unsharded tree.
  const isRecord = (file: string) => file.startsWith('_snapshot/manifests/') || file.startsWith('_snapshot/night/');
  const nights: NightSummary[] = [];
  const union = new Map<string, string>();
  const unionDir = path.join(root, 'union');
  let wallets = 0;
  for (let k = 1; k <= 4; k++) {
    const out = path.join(root, `shard-${k}`);
    // Jobs of a matrix start minutes apart: with no row between the instants, the bytes are the same.
    const later = new Date(Date.parse(now) + k * 20 * 60_000).toISOString();
    const shard = await buildSnapshot(resolveBuildConfig({ input, out, now: later, shard: `${k}/4`, progress: 'quiet' }));
    const alone = await verifyTree(out);
    assert.equal(alone.failures, []);
    assert.is(alone.coverage, `shard ${k} of 4`);
    fs.cpSync(out, unionDir, { recursive: true, dereference: true });
    assert.ok(shard.wallets > 30 && shard.wallets < 120, `shard ${k} has ${shard.wallets} wallets`);
    wallets += shard.wallets;
    nights.push(shard.night);
    for (const [file, hash] of treeHashes(out)) {
      if (isRecord(file)) continue;
      const isWalletFile = file.startsWith('v1/address/');
      if (union.has(file)) {
        assert.not.ok(isWalletFile, `${file} is written by two shards`);
        assert.is(union.get(file), hash, `shared file ${file} differs between shards`);
      }
      union.set(file, hash);
    }
  }
  assert.is(wallets, summary.wallets);
  // The shards' night summaries add up to the whole night's (the sums of doubles to a relative 1e-12).
  const added = addShardSummaries(nights);
  assert.equal({ ...added, days: [] }, { ...summary.night, days: [] });
  added.days.forEach((day, i) =>
    assert.ok(Math.abs(day.totalValueUsd - summary.night.days[i]!.totalValueUsd) <= 1e-12 * summary.night.days[i]!.totalValueUsd, day.date),
  );
  assert.equal([...union.entries()].sort(), [...expected.entries()].filter(([file]) => !isRecord(file)).sort());
  // The union holds all four records: it verifies as the whole tree, and a wallet lost is caught.
  const united = await verifyTree(unionDir);
  assert.equal(united.failures, []);
  assert.is(united.coverage, 'all 4 shards');
  const wallet = fs.readdirSync(path.join(unionDir, 'v1/address'))[0]!;
  fs.rmSync(path.join(unionDir, 'v1/address', wallet), { recursive: true });
  assert.match((await verifyTree(unionDir)).failures.join('\n'), `v1/address/${wallet}/portfolio.json: missing`);
});

test('7 shards of 4 addresses: each folder prepare wrote, empty ones included, builds what build --shard builds, and the union is the whole tree', async () => {
  const root = tempDir();
  const input = await writeInputs(path.join(root, 'input'), {
    balances: [balance({ address: A, block_number: 1, balance: '10' }), balance({ address: SUB, block_number: 2, balance: '5' })],
    venue_b_accounts: [{ chain_id: 1, account: SUB, owner: B }],
    prices: [],
    points: [
      { season: 1, date: '2025-11-01', address: C, points: 3 },
      { season: 1, date: '2025-11-02', address: A, points: -1 },
    ],
    seasons: [
      { season: 1, as_of: null },
      { season: 2, as_of: null },
    ],
  });
  const quiet = { progress: 'quiet' as const, threads: 1 };
  // A and B hold balances (SUB's count for B, its owner), C only points.
  const addresses = [A, B, C];
  assert.ok(new Set(addresses.map((address) => shardOf(address, 7))).size < 7, 'some shards hold no address');
  const night = path.join(root, 'night');
  await prepareNight({ ...resolveBuildConfig({ input, out: night, now, ...quiet }), shards: 7 });
  const whole = path.join(root, 'whole');
  await buildSnapshot(resolveBuildConfig({ input, out: whole, now, ...quiet }));
  const isRecord = (file: string) => file.startsWith('_snapshot/manifests/') || file.startsWith('_snapshot/night/');
  const union = new Map<string, string>();
  for (let k = 1; k <= 7; k++) {
    const alone = path.join(tempDir(), 'copy');
    fs.cpSync(path.join(night, `shard-${k}-of-7`), alone, { recursive: true });
    const prepared = path.join(root, `prepared-${k}`);
    const summary = await buildSnapshot(resolveBuildConfig({ prepared: alone, out: prepared, ...quiet }));
    const sharded = path.join(root, `sharded-${k}`);
    await buildSnapshot(resolveBuildConfig({ input, out: sharded, now, shard: `${k}/7`, ...quiet }));
    assert.equal(treeHashes(prepared), treeHashes(sharded), `shard ${k}`);
    assert.is(summary.wallets, [A, B].filter((address) => shardOf(address, 7) === k).length, `shard ${k}: wallets`);
    const folders = fs.existsSync(path.join(prepared, 'v1/address')) ? fs.readdirSync(path.join(prepared, 'v1/address')).sort() : [];
    assert.equal(folders, addresses.filter((address) => shardOf(address, 7) === k).sort(), `shard ${k}: address folders`);
    for (const [file, hash] of treeHashes(prepared)) if (!isRecord(file)) union.set(file, hash);
  }
  assert.equal([...union.entries()].sort(), [...treeHashes(whole).entries()].filter(([file]) => !isRecord(file)).sort());
});

test.run();
