/**
 * The facts of the whole export in `_snapshot/meta.json` (the daily `asOf` and the example
 * wallet) are the same in every shard's build as in the whole build, though a shard computes the
 * snapshots of its own wallets only (build/compute/export-facts.ts probes the others in batches).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { balance, build, PINNED_NOW, tempDir, writeInputs, type Row, type Tables } from '../helpers/fixtures.ts';
import { shardOf } from '../../core/shard.ts';
import { prepareNight } from '../../build/prepare.ts';
import { buildSnapshot } from '../../build/index.ts';
import { resolveBuildConfig } from '../../build/config.ts';

const address = (prefix: string, i: number) => `0x${prefix}${i.toString(16).padStart(39, '0')}`;
/** Today in New York at the pinned --now (2025-11-21T17:00:00Z): after L = 2025-11-20, before now. */
const TODAY = Date.parse('2025-11-21T15:00:00Z') / 1000;

/** A wallet whose rows come to 5 and back to 0 in one transaction: a row > 0, yet no snapshot. */
function noSnapshot(wallet: string, block: number): Row[] {
  return [
    balance({ address: wallet, block_number: block, log_index: 0, balance: '5' }),
    balance({ address: wallet, block_number: block, log_index: 1, balance: '0' }),
  ];
}

test('a shard finds the example and the daily asOf of the whole export past candidates without snapshots', async () => {
  const owners = Array.from({ length: 70 }, (_, i) => address('1', i));
  const emptyWallets = Array.from({ length: 1_100 }, (_, i) => address('4', i));
  // The example: the first owner of sub-accounts with a snapshot, 71st in the example's order
  // (the probe's second batch); its only snapshot, through its sub-account, is dated today, after
  // L. The sub-account, 1,243rd, is a candidate of the third batch: the example's rows are found
  // through its owner's batch, not its own.
  const example = address('3', 0);
  const exampleSub = address('f', 1);
  // The only snapshot dated <= L, of a wallet without sub-accounts: 1,242nd in that order.
  const closed = address('5', 0);
  const balances = [
    ...owners.flatMap((owner, i) => noSnapshot(owner, 10 + i)),
    ...emptyWallets.flatMap((wallet, i) => noSnapshot(wallet, 1_000 + i)),
    balance({ address: exampleSub, block_number: 5_000, timestamp: TODAY, balance: '7' }),
    balance({ address: closed, block_number: 5_001, balance: '9' }),
  ];
  const tables = {
    balances,
    venue_b_accounts: [
      ...owners.map((owner, i) => ({ chain_id: 1, account: address('2', i), owner })),
      { chain_id: 1, account: exampleSub, owner: example },
    ],
  };
  const whole = await build(tables);
  const meta = whole.text('_snapshot/meta.json');
  assert.is(JSON.parse(meta).exampleWallet, example);
  assert.is(JSON.parse(meta).dailyAsOf, '2025-11-20');
  for (let k = 1; k <= 3; k++) {
    const shard = await build(tables, { shard: `${k}/3` });
    assert.is(shard.text('_snapshot/meta.json'), meta, `shard ${k} of 3`);
  }
  // prepare probes the balance rows it loaded, not the export: the same facts.
  assert.equal(await preparedMetas(tables, 3), [meta, meta, meta]);
});

/** Each shard's meta.json, built from the folders `prepare --shards N` wrote. */
async function preparedMetas(tables: Tables, shards: number): Promise<string[]> {
  const root = tempDir();
  const input = await writeInputs(path.join(root, 'input'), tables);
  const quiet = { progress: 'quiet' as const, threads: 1 };
  const { folders } = await prepareNight({
    ...resolveBuildConfig({ input, out: path.join(root, 'night'), now: PINNED_NOW, ...quiet }),
    shards,
  });
  const metas: string[] = [];
  for (const [i, folder] of folders.entries()) {
    const out = path.join(root, `tree-${i + 1}`);
    await buildSnapshot(resolveBuildConfig({ prepared: folder, out, ...quiet }));
    metas.push(fs.readFileSync(path.join(out, '_snapshot/meta.json'), 'utf8'));
  }
  return metas;
}

test('with no snapshot dated <= L anywhere, every shard writes a null asOf, as the whole build does', async () => {
  const tables = {
    balances: [...noSnapshot(address('1', 0), 1), balance({ address: address('2', 0), block_number: 2, timestamp: TODAY, balance: '3' })],
  };
  const whole = await build(tables);
  const meta = whole.text('_snapshot/meta.json');
  assert.is(JSON.parse(meta).dailyAsOf, null);
  assert.is(JSON.parse(meta).exampleWallet, address('2', 0));
  for (let k = 1; k <= 2; k++) assert.is((await build(tables, { shard: `${k}/2` })).text('_snapshot/meta.json'), meta, `shard ${k} of 2`);
  assert.equal(await preparedMetas(tables, 2), [meta, meta]);
});

test("a shard keeps the rows of its wallets: a sub-account's with its owner on that chain, its own on another chain", async () => {
  const owner = address('1', 0);
  // A sub-account of the owner on chain 1, a wallet of its own on chain 10, in the other shard.
  const sub = Array.from({ length: 64 }, (_, i) => address('2', i)).find((candidate) => shardOf(candidate, 2) !== shardOf(owner, 2))!;
  const tables = {
    balances: [
      balance({ address: owner, block_number: 1, balance: '100' }),
      balance({ address: sub, block_number: 2, balance: '50' }),
      balance({ address: sub, block_number: 3, chain_id: 10, balance: '7' }),
    ],
    venue_b_accounts: [{ chain_id: 1, account: sub, owner }],
  };
  const whole = await build(tables);
  const history = (wallet: string) => `v1/address/${wallet}/portfolio.json`;
  for (let k = 1; k <= 2; k++) {
    const shard = await build(tables, { shard: `${k}/2` });
    for (const wallet of [owner, sub]) {
      if (shardOf(wallet, 2) === k) assert.is(shard.text(history(wallet)), whole.text(history(wallet)), `${wallet} in shard ${k}`);
      else assert.not.ok(shard.exists(history(wallet)), `${wallet} is not in shard ${k}`);
    }
  }
  assert.equal(Object.keys(whole.json(history(owner))), ['1']);
  assert.equal(Object.keys(whole.json(history(sub))), ['10']);
});

test.run();
