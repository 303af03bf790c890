/**
 * Writing threads kept between the builds of one process (build/write/thread-cache.ts, kept by
 * test/helpers/thread-cache.ts): a second build takes the first one's threads, emptied of its
 * state, and writes the same tree as with threads of its own; idle threads keep no process alive
 * (this suite's process ends).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import { buildSnapshot } from '../build/index.ts';
import { resolveBuildConfig } from '../build/config.ts';
import { ThreadCache } from './helpers/thread-cache.ts';
import { A, B, C, balance, PINNED_NOW, tempDir, treeHashes, writeInputs, type Tables } from './helpers/fixtures.ts';

const FIRST: Tables = {
  balances: [balance({ address: A, block_number: 1, balance: '5' })],
  seasons: [{ season: 1, as_of: null }],
  points: [{ season: 1, date: '2025-11-19', address: A, points: 3 }],
};
const SECOND: Tables = {
  balances: [balance({ address: B, block_number: 1, balance: '7' }), balance({ address: C, block_number: 2, balance: '9' })],
  seasons: [{ season: 1, as_of: null }],
  points: [
    { season: 1, date: '2025-11-18', address: B, points: 2 },
    { season: 1, date: '2025-11-19', address: C, points: 4 },
  ],
};

async function buildInto(tables: Tables, cache: ThreadCache | undefined, manifest: boolean): Promise<string> {
  const root = tempDir('ws-thread-cache-');
  const input = await writeInputs(path.join(root, 'input'), tables);
  const out = path.join(root, 'public');
  const config = resolveBuildConfig({
    input,
    out,
    now: PINNED_NOW,
    progress: 'quiet',
    threads: 1,
    ...(manifest ? { manifest: path.join(root, 'tree.sha256') } : {}),
  });
  await buildSnapshot(config, { threadCache: cache });
  return out;
}

test("a second build takes the first one's threads, emptied, and writes the tree fresh threads write", async () => {
  const cache = new ThreadCache();
  await buildInto(FIRST, cache, true);
  assert.is(cache.size, 2, 'the file thread and the document thread wait for the next build');
  const reused = await buildInto(SECOND, cache, false);
  assert.is(cache.size, 2, 'taken and given back, none started');
  const fresh = await buildInto(SECOND, undefined, false);
  assert.equal(treeHashes(reused), treeHashes(fresh));
  await cache.close();
  assert.is(cache.size, 0);
});

test.run();
