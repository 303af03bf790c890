/** The bundled sample: reproducible from its seed, and its build conforms to every schema. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { buildReusingThreads, fileHash as hash, PINNED_NOW, tempDir } from './helpers/fixtures.ts';
import { ROOT } from './helpers/process.ts';
import { verifyTree } from '../tree/verify.ts';
import { generateDataset } from '../data/generate.ts';
import { SAMPLE_OPTIONS, STORY_WALLET } from '../data/generate-sample.ts';

const SAMPLE = path.join(ROOT, 'data/sample');

test('the generator rebuilds data/sample byte for byte from its seed', async () => {
  const dir = tempDir();
  await generateDataset({ ...SAMPLE_OPTIONS, outDir: dir });
  for (const file of fs.readdirSync(SAMPLE)) assert.is(hash(path.join(dir, file)), hash(path.join(SAMPLE, file)), file);
});

test('with several threads too, a seed gives the same bytes', async () => {
  const options = { wallets: 300, seed: 5, startDate: '2025-01-01', days: 90, seasonOneEnd: '2025-02-01', rowsPerWallet: 30, threads: 2 };
  const [one, two] = [tempDir(), tempDir()];
  await generateDataset({ ...options, outDir: one });
  await generateDataset({ ...options, outDir: two });
  for (const file of fs.readdirSync(one)) assert.is(hash(path.join(one, file)), hash(path.join(two, file)), file);
});

test('the sample builds into a tree that verifies, with the story wallet attributed', async () => {
  const out = path.join(tempDir(), 'public');
  const summary = await buildReusingThreads({ input: SAMPLE, out, now: PINNED_NOW, progress: 'quiet' });
  assert.ok(summary.wallets >= 40);
  const result = await verifyTree(out);
  assert.equal(result.failures, []);
  const history = JSON.parse(fs.readFileSync(path.join(out, `v1/address/${STORY_WALLET}/portfolio.json`), 'utf8'));
  // The same-transaction move into the sub-account (block 903) leaves no snapshot.
  assert.equal(
    history['1'].uty.map((s: { date: string }) => s.date),
    ['2025-03-08', '2025-03-09'],
  );
  assert.is(history['1'].venueBUsdc[0].balance, 2500);
});

test.run();
