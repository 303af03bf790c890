/**
 * `prepare` once, then `build --prepared` of each shard's folder alone, copied anywhere: the same
 * tree, byte for byte, as `build --input --shard K/N` with the same --now; an altered folder is
 * refused by name; prepare refuses every input the build refuses, in the same words; and every
 * shard refuses an export the whole build refuses, whichever shard holds the bad rows.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import {
  A,
  B,
  C,
  RawSql,
  SUB,
  balance,
  buildReusingThreads,
  PINNED_NOW as now,
  tempDir,
  thrown,
  treeHashes,
  writeInputs,
  type Tables,
} from './helpers/fixtures.ts';
import { resolveBuildConfig } from '../build/config.ts';
import { prepareNight } from '../build/prepare.ts';
import { openPreparedFolder, PREPARED_FACTS_FILE, PREPARED_FORMAT, sealOf } from '../build/prepared-folder.ts';
import { UserError } from '../core/errors.ts';
import { shardOf } from '../core/shard.ts';
import { verifyTree } from '../tree/verify.ts';

const address = (prefix: string, i: number) => `0x${prefix}${i.toString(16).padStart(39, '0')}`;
const quiet = { progress: 'quiet' as const, threads: 1 };

/** Wallets with sub-accounts on two chains, a sub-account that is a wallet of its own on a third, and points. */
function night(): Tables {
  const wallets = Array.from({ length: 12 }, (_, i) => address('a', i));
  return {
    balances: [
      ...wallets.flatMap((wallet, i) => [
        balance({ address: wallet, block_number: 10 + i, balance: String(1_000 + i) }),
        balance({ address: wallet, block_number: 40 + i, chain_id: 10, token: 'yuty', balance: '123456789012345678901234567890' }),
      ]),
      balance({ address: SUB, block_number: 100, balance: '77' }),
      balance({ address: SUB, block_number: 101, chain_id: 8453, balance: '5' }),
      balance({ address: C, block_number: 102, chain_id: 10, token: 'venueBUsdc', balance: '9000000' }),
    ],
    venue_b_accounts: [
      { chain_id: 1, account: SUB, owner: wallets[3]! },
      { chain_id: 10, account: C, owner: wallets[7]! },
    ],
    prices: [{ chain_id: 1, token: 'uty', date: '2025-06-01', usd_price: 1.25 }],
    points: wallets.flatMap((wallet, i) => [
      { season: 1, date: '2025-11-01', address: wallet.toUpperCase().replace('0X', '0x'), points: i % 4 },
      { season: 1, date: '2025-11-03', address: wallet, points: 0.1 * i },
      { season: 2, date: '2025-11-19', address: wallet, points: 7 - i },
    ]),
    seasons: [
      { season: 1, as_of: '2025-11-05' },
      { season: 2, as_of: null },
    ],
  };
}

test('each prepared folder, alone in a fresh place, builds the tree build --input --shard K/N builds', async () => {
  const root = tempDir();
  const input = await writeInputs(path.join(root, 'input'), night());
  const nightDir = path.join(root, 'night');
  const prepared = await prepareNight({ ...resolveBuildConfig({ input, out: nightDir, now, ...quiet }), shards: 2 });
  assert.equal(
    prepared.folders,
    [1, 2].map((k) => path.join(nightDir, `shard-${k}-of-2`)),
  );
  // The facts of the whole export every shard writes (the daily asOf, the example wallet), as the
  // whole build writes them.
  const whole = path.join(root, 'whole');
  await buildReusingThreads({ input, out: whole, now, ...quiet });
  const meta = fs.readFileSync(path.join(whole, '_snapshot/meta.json'), 'utf8');
  assert.is(JSON.parse(meta).exampleWallet, address('a', 3));
  let wallets = 0;
  for (let k = 1; k <= 2; k++) {
    // Copied without its siblings, under another name, and the night removed.
    const alone = path.join(tempDir(), 'copy');
    fs.cpSync(path.join(nightDir, `shard-${k}-of-2`), alone, { recursive: true });
    const fromFolder = path.join(root, `prepared-${k}`);
    const summary = await buildReusingThreads({ prepared: alone, out: fromFolder, ...quiet });
    const fromInput = path.join(root, `input-${k}`);
    await buildReusingThreads({ input, out: fromInput, now, shard: `${k}/2`, ...quiet });
    assert.equal(treeHashes(fromFolder), treeHashes(fromInput), `shard ${k}`);
    assert.equal((await verifyTree(fromFolder)).failures, []);
    assert.is(fs.readFileSync(path.join(fromFolder, '_snapshot/meta.json'), 'utf8'), meta, `shard ${k}: meta.json`);
    assert.is(summary.now, now);
    wallets += summary.wallets;
  }
  // A packed build of a prepared shard names the folder's shard, not the options' (which give none).
  const packed = path.join(root, 'prepared-2-packed');
  await buildReusingThreads({ prepared: path.join(nightDir, 'shard-2-of-2'), out: packed, packed: true, ...quiet });
  assert.equal(JSON.parse(fs.readFileSync(path.join(packed, 'packed.json'), 'utf8')).shard, { index: 2, count: 2 });
  // Twelve wallets, and SUB, a sub-account on chain 1 but a wallet of its own on chain 8453 (C is one on chain 10 only).
  assert.is(wallets, 13);
});

test('the whole build is one prepared shard: prepare --shards 1, then build --prepared, writes the tree build --input writes', async () => {
  const root = tempDir();
  const input = await writeInputs(path.join(root, 'input'), night());
  const nightDir = path.join(root, 'night');
  await prepareNight({ ...resolveBuildConfig({ input, out: nightDir, now, ...quiet }), shards: 1 });
  const fromFolder = path.join(root, 'prepared');
  await buildReusingThreads({ prepared: path.join(nightDir, 'shard-1-of-1'), out: fromFolder, ...quiet });
  const whole = path.join(root, 'whole');
  await buildReusingThreads({ input, out: whole, now, ...quiet });
  const hashes = treeHashes(whole);
  assert.ok(hashes.size > 30, `${hashes.size} files`);
  assert.equal(treeHashes(fromFolder), hashes);
});

test('a prepared folder that was altered is refused, naming the file', async () => {
  const root = tempDir();
  const input = await writeInputs(path.join(root, 'input'), night());
  const nightDir = path.join(root, 'night');
  await prepareNight({ ...resolveBuildConfig({ input, out: nightDir, now, ...quiet }), shards: 2 });
  const fresh = (name: string) => {
    const copy = path.join(tempDir(), name);
    fs.cpSync(path.join(nightDir, 'shard-1-of-2'), copy, { recursive: true });
    return copy;
  };
  const refusal = async (folder: string) => {
    const error = await thrown(() => openPreparedFolder(folder));
    assert.instance(error, UserError);
    return error.message;
  };
  const flipped = fresh('flipped');
  const rows = path.join(flipped, 'balance_rows.1.parquet');
  const bytes = fs.readFileSync(rows);
  bytes[Math.floor(bytes.length / 2)]! ^= 0xff;
  fs.writeFileSync(rows, bytes);
  assert.match(await refusal(flipped), `${rows} was altered after prepare wrote it`);

  const edited = fresh('edited');
  const factsFile = path.join(edited, PREPARED_FACTS_FILE);
  fs.writeFileSync(factsFile, fs.readFileSync(factsFile, 'utf8').replace('"dailyAsOf":"2025-11-20"', '"dailyAsOf":"2025-11-19"'));
  assert.match(await refusal(edited), `${factsFile} was altered after prepare wrote it`);

  // A folder of an earlier release (format 1 held the points histories' rows in one table), sealed as it was.
  const older = fresh('older');
  const olderFacts = path.join(older, PREPARED_FACTS_FILE);
  const format1 = JSON.parse(fs.readFileSync(olderFacts, 'utf8'));
  delete format1.seal;
  format1.format = 1;
  fs.writeFileSync(olderFacts, JSON.stringify({ ...format1, seal: sealOf(format1) }));
  assert.match(
    await refusal(older),
    `${olderFacts} was written by another version of wallet-snapshot (prepared folder format 1; this version reads format ${PREPARED_FORMAT})`,
  );

  const missing = fresh('missing');
  fs.rmSync(path.join(missing, 'participants.parquet'));
  assert.match(await refusal(missing), `${path.join(missing, 'participants.parquet')} is missing`);

  const extra = fresh('extra');
  fs.writeFileSync(path.join(extra, 'notes.txt'), 'hello');
  assert.match(await refusal(extra), `${path.join(extra, 'notes.txt')} was not written by prepare`);
  assert.match(await refusal(path.join(root, 'input')), 'holds no prepared.json');
});

/** A key of balances.parquet repeated with another balance, in the rows of one wallet. */
function conflicting(wallet: string): Tables {
  return {
    balances: [
      balance({ address: A, block_number: 1, balance: '10' }),
      balance({ address: B, block_number: 2, balance: '20' }),
      balance({ address: wallet, block_number: 3, balance: '30' }),
      balance({ address: wallet, block_number: 3, balance: '31' }),
    ],
  };
}

test('prepare refuses what the build refuses, in the same words, and so does every shard whichever holds the rows', async () => {
  const root = tempDir();
  const input = await writeInputs(path.join(root, 'input'), conflicting(C));
  const whole = await thrown(() => buildReusingThreads({ input, out: path.join(root, 'whole'), now, ...quiet }));
  assert.instance(whole, UserError);
  assert.match(whole.message, 'a key (chain_id, block_number, log_index, address, token) repeated with a different balance');
  const prepared = await thrown(() =>
    prepareNight({ ...resolveBuildConfig({ input, out: path.join(root, 'night'), now, ...quiet }), shards: 4 }),
  );
  assert.is(prepared.message, whole.message);
  assert.is((prepared as UserError).exitCode, (whole as UserError).exitCode);
  assert.not.ok(
    fs.readdirSync(path.join(root, 'night')).some((name) => name.startsWith('shard-')),
    'no shard folder is written',
  );
  // The rows are in one shard's wallet only; the shards that do not hold it refuse too.
  assert.ok(shardOf(A, 4) !== shardOf(C, 4) || shardOf(B, 4) !== shardOf(C, 4));
  for (let k = 1; k <= 4; k++) {
    const shard = await thrown(() => buildReusingThreads({ input, out: path.join(root, `shard-${k}`), now, shard: `${k}/4`, ...quiet }));
    assert.is(shard.message, whole.message, `shard ${k} of 4`);
  }
  // A missing file: refused before any work, as the build refuses it.
  fs.rmSync(path.join(input, 'points.parquet'));
  const missingWhole = await thrown(() => buildReusingThreads({ input, out: path.join(root, 'whole'), now, ...quiet }));
  const missingPrepared = await thrown(() =>
    prepareNight({ ...resolveBuildConfig({ input, out: path.join(root, 'night'), now, ...quiet }), shards: 4 }),
  );
  assert.is(missingPrepared.message, missingWhole.message);
});

test("a full night's one scan of each file refuses every bad value in build's words: the same counts and examples", async () => {
  const root = tempDir();
  const tables: Tables = {
    ...night(),
    points: [
      { season: 1, date: '2025-11-01', address: A, points: 1 },
      { season: 0, date: '2025-11-02', address: A, points: 2 },
      { season: 1, date: '2025-11-03', address: '0xZZ', points: 3 },
      { season: 1, date: '2025-11-03', address: '0xZZ', points: 4 },
      { season: 1, date: '2025-11-04', address: B, points: new RawSql("'nan'::DOUBLE") },
    ],
    venue_b_accounts: [{ chain_id: 1, account: 'bad', owner: A }],
    prices: [{ chain_id: 1, token: 'uty', date: '2025-11-01', usd_price: -1 }],
    seasons: [
      { season: 1, as_of: null },
      { season: -3, as_of: null },
    ],
  };
  const input = await writeInputs(path.join(root, 'input'), tables);
  const whole = await thrown(() => buildReusingThreads({ input, out: path.join(root, 'whole'), now, ...quiet }));
  assert.instance(whole, UserError);
  for (const says of [
    'points.parquet: column "season": 1 row',
    'points.parquet: column "address": 2 rows',
    'points.parquet: column "points": 1 row',
  ])
    assert.match(whole.message, says);
  const prepared = await thrown(() =>
    prepareNight({ ...resolveBuildConfig({ input, out: path.join(root, 'night'), now, ...quiet }), shards: 2 }),
  );
  assert.is(prepared.message, whole.message);
  assert.is((prepared as UserError).exitCode, (whole as UserError).exitCode);
});

test('prepare refuses a night folder that holds the exports or is held by them, a symbolic link followed, and writes nothing', async () => {
  const root = tempDir();
  const input = await writeInputs(path.join(root, 'input'), night());
  const before = fs.readdirSync(input).sort();
  // Through a link, the night is inside the exports' folder although its path does not say so.
  fs.symlinkSync(input, path.join(root, 'exports'));
  for (const out of [path.join(input, 'night'), root, path.join(root, 'exports', 'night')]) {
    const refused = await thrown(() => prepareNight({ ...resolveBuildConfig({ input, out, now, ...quiet }), shards: 2 }));
    assert.instance(refused, UserError, out);
    assert.match(refused.message, `--out ${out} and --input ${input} overlap`);
  }
  assert.equal(fs.readdirSync(input).sort(), before);
});

test("a summed balance beyond 2^127 - 1, found only by computing a wallet's sums, is refused by prepare and every shard too", async () => {
  const root = tempDir();
  const large = '9'.repeat(38);
  const input = await writeInputs(path.join(root, 'input'), {
    balances: [
      balance({ address: A, block_number: 1, balance: large }),
      balance({ address: SUB, block_number: 2, balance: large }),
      balance({ address: B, block_number: 3, balance: '1' }),
    ],
    venue_b_accounts: [{ chain_id: 1, account: SUB, owner: A }],
  });
  const whole = await thrown(() => buildReusingThreads({ input, out: path.join(root, 'whole'), now, ...quiet }));
  assert.instance(whole, UserError);
  assert.match(whole.message, "a wallet's summed raw balance of one token on one chain exceeds 2^127 - 1");
  const prepared = await thrown(() =>
    prepareNight({ ...resolveBuildConfig({ input, out: path.join(root, 'night'), now, ...quiet }), shards: 2 }),
  );
  assert.is(prepared.message, whole.message);
  for (let k = 1; k <= 2; k++) {
    const shard = await thrown(() => buildReusingThreads({ input, out: path.join(root, `shard-${k}`), now, shard: `${k}/2`, ...quiet }));
    assert.is(shard.message, whole.message, `shard ${k} of 2`);
  }
});

test("values that can reach beyond the largest JSON number, in one shard's wallet, are refused by prepare and every shard too", async () => {
  const root = tempDir();
  const input = await writeInputs(path.join(root, 'input'), {
    balances: [balance({ address: A, block_number: 1, balance: '9'.repeat(37) }), balance({ address: SUB, block_number: 2, balance: '1' })],
    prices: [{ chain_id: 1, token: 'uty', date: '2025-06-01', usd_price: 1e300 }],
  });
  const whole = await thrown(() => buildReusingThreads({ input, out: path.join(root, 'whole'), now, ...quiet }));
  assert.instance(whole, UserError);
  assert.match(whole.message, `1 wallet whose balances times their prices can reach beyond the largest JSON number, e.g. ${A}`);
  const prepared = await thrown(() =>
    prepareNight({ ...resolveBuildConfig({ input, out: path.join(root, 'night'), now, ...quiet }), shards: 2 }),
  );
  assert.is(prepared.message, whole.message);
  assert.ok(shardOf(A, 2) !== shardOf(SUB, 2), 'the two wallets in different shards');
  for (let k = 1; k <= 2; k++) {
    const shard = await thrown(() => buildReusingThreads({ input, out: path.join(root, `shard-${k}`), now, shard: `${k}/2`, ...quiet }));
    assert.is(shard.message, whole.message, `shard ${k} of 2`);
  }
  // With a summed balance beyond 2^127 - 1 as well, every kind of build names the same problem first.
  const both = await writeInputs(path.join(root, 'both'), {
    balances: [
      balance({ address: A, block_number: 1, balance: '9'.repeat(38) }),
      balance({ address: SUB, block_number: 2, balance: '9'.repeat(38) }),
    ],
    venue_b_accounts: [{ chain_id: 1, account: SUB, owner: A }],
    prices: [{ chain_id: 1, token: 'uty', date: '2025-06-01', usd_price: 1e300 }],
  });
  const wholeBoth = await thrown(() => buildReusingThreads({ input: both, out: path.join(root, 'whole-both'), now, ...quiet }));
  assert.match(wholeBoth.message, 'can reach beyond the largest JSON number');
  const preparedBoth = await thrown(() =>
    prepareNight({ ...resolveBuildConfig({ input: both, out: path.join(root, 'night-both'), now, ...quiet }), shards: 2 }),
  );
  assert.is(preparedBoth.message, wholeBoth.message);
});

test.run();
