/**
 * The bench's streamed generator (data/generate.ts): a seed gives the same bytes whatever the
 * threads and the memory limit (so spilling changes nothing), the points come out in the order of
 * their key without a sort, the balances in theirs from a sort of their keys alone, and an
 * interrupted generation resumes from the files written whole.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { generateDataset, type DatasetOptions } from '../data/generate.ts';
import { tempDir } from './helpers/fixtures.ts';

const OPTIONS: Omit<DatasetOptions, 'outDir'> = {
  wallets: 300,
  seed: 7,
  startDate: '2025-01-01',
  days: 40,
  seasonOneEnd: '2025-01-20',
  rowsPerWallet: 20,
};
const FILES = ['balances', 'tokens', 'venue_b_accounts', 'prices', 'points', 'multipliers', 'seasons'].map((table) => `${table}.parquet`);

const digests = (dir: string) =>
  Object.fromEntries(
    FILES.map((file) => [
      file,
      crypto
        .createHash('sha256')
        .update(fs.readFileSync(path.join(dir, file)))
        .digest('hex'),
    ]),
  );

test('the same seed gives the same bytes with 1 or 2 threads and a memory limit small enough to spill', async () => {
  const one = tempDir('ws-generate-');
  const two = tempDir('ws-generate-');
  try {
    await generateDataset({ ...OPTIONS, outDir: one, threads: 1, memoryLimit: '64MB' });
    await generateDataset({ ...OPTIONS, outDir: two, threads: 2 });
    assert.equal(digests(one), digests(two));
    assert.equal(fs.readdirSync(one).sort(), [...FILES].sort(), 'no .part file or spill folder is left');
  } finally {
    for (const dir of [one, two]) fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('points are written in season, date, address order (built in that order, not sorted)', async () => {
  const dir = tempDir('ws-generate-');
  const instance = await DuckDBInstance.create(':memory:');
  const db = await instance.connect();
  try {
    await generateDataset({ ...OPTIONS, outDir: dir });
    const file = path.join(dir, 'points.parquet').replaceAll("'", "''");
    const reader = await db.runAndReadAll(`
      WITH numbered AS (
        SELECT (season, date, address) AS key, lag((season, date, address)) OVER (ORDER BY file_row_number) AS previous
        FROM read_parquet('${file}', file_row_number = true)
      )
      SELECT count(*) AS rows, count(*) FILTER (WHERE key <= previous) AS out_of_order FROM numbered`);
    const [rows, outOfOrder] = reader.getRows()[0]!;
    assert.ok(Number(rows) > OPTIONS.wallets * 10, `${rows} rows`);
    assert.is(Number(outOfOrder), 0);
  } finally {
    db.disconnectSync();
    instance.closeSync();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('balances are written in (chain_id, block_number, log_index, address, token) order, spilling on two threads', async () => {
  const dir = tempDir('ws-generate-');
  const instance = await DuckDBInstance.create(':memory:');
  const db = await instance.connect();
  try {
    await generateDataset({ ...OPTIONS, wallets: 1000, days: 90, rowsPerWallet: 60, outDir: dir, threads: 2, memoryLimit: '32MB' });
    const file = path.join(dir, 'balances.parquet').replaceAll("'", "''");
    const reader = await db.runAndReadAll(`
      WITH numbered AS (
        SELECT (chain_id, block_number, log_index, address, token) AS key,
               lag((chain_id, block_number, log_index, address, token)) OVER (ORDER BY file_row_number) AS previous
        FROM read_parquet('${file}', file_row_number = true)
      )
      SELECT count(*) AS rows, count(*) FILTER (WHERE key <= previous) AS out_of_order,
             (SELECT count(DISTINCT address) FROM read_parquet('${file}')) AS addresses
      FROM numbered`);
    const [rows, outOfOrder, addresses] = reader.getRows()[0]!;
    assert.ok(Number(rows) > 50_000, `${rows} rows`);
    assert.ok(Number(addresses) > 1000, `${addresses} addresses: every wallet and the sub-accounts`);
    assert.is(Number(outOfOrder), 0);
  } finally {
    db.disconnectSync();
    instance.closeSync();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('keepExisting keeps the files written whole and rewrites the rest (a .part file is never kept)', async () => {
  const dir = tempDir('ws-generate-');
  try {
    await generateDataset({ ...OPTIONS, outDir: dir });
    const whole = digests(dir);
    // As an interrupted run leaves it: points never renamed into place, seasons not yet written.
    fs.renameSync(path.join(dir, 'points.parquet'), path.join(dir, 'points.parquet.part'));
    fs.truncateSync(path.join(dir, 'points.parquet.part'), 100);
    fs.rmSync(path.join(dir, 'seasons.parquet'));
    const balancesWritten = fs.statSync(path.join(dir, 'balances.parquet')).mtimeMs;
    const lines: string[] = [];
    await generateDataset({ ...OPTIONS, outDir: dir, keepExisting: true, onProgress: (line) => lines.push(line) });
    assert.equal(digests(dir), whole);
    assert.is(fs.statSync(path.join(dir, 'balances.parquet')).mtimeMs, balancesWritten);
    assert.ok(lines.includes('balances.parquet: kept (written by an earlier run)'), lines.join('\n'));
    assert.not.ok(fs.existsSync(path.join(dir, 'points.parquet.part')));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
