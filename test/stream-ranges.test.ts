/**
 * The wallet stage reads the snapshots in ranges of wallet ids, each sorted by a query of its own
 * (build/write/wallets.ts, sliceStream): every row once, in (wallet, chain, token, number) order,
 * whatever the number of wallets; and closing it while a range is still being sorted interrupts
 * that sort (a build stopped by Ctrl-C does not wait for it) and is clean.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { DuckDBVector } from '@duckdb/node-api';
import { scratchDatabase } from './helpers/fixtures.ts';
import type { Database } from '../build/database.ts';
import { sliceStream } from '../build/write/wallets.ts';
import { seriesKeySql } from '../build/compute/series-key.ts';

const database = (): Promise<Database> => scratchDatabase({ memoryLimit: '512MB' });

/**
 * Wallets 1..last (ids as the check numbers them); those in `withSnapshots` get three series
 * (chain 0 token 0, the lowest key of a wallet, with one snapshot; chain 0 token 3 with two;
 * chain 1 token 0 with one), inserted in no particular order.
 */
async function snapshotsOf(db: Database, last: number, withSnapshots: number[]): Promise<void> {
  await db.run(`CREATE TABLE addresses AS SELECT printf('0x%040x', i) AS address, i::INTEGER AS id FROM range(1, ${last + 1}) r(i)`);
  const rows = withSnapshots.flatMap((wallet) => [
    [wallet, 1, 0, 1],
    [wallet, 0, 3, 2],
    [wallet, 0, 0, 1],
    [wallet, 0, 3, 1],
  ]);
  await db.run(`
    CREATE TABLE snapshots AS
    SELECT ${seriesKeySql('w', 'c', 't')} AS series, n::INTEGER AS number, (1700000000 + w * 10 + n)::BIGINT AS ts,
           (19000 + n)::INTEGER AS day, (w * 1000 + n)::HUGEINT AS raw_balance
    FROM (VALUES ${rows.map((row) => `(${row.join(', ')})`).join(', ')}) v(w, c, t, n)
    ORDER BY hash(w, c, t, n)`);
}

async function readAll(db: Database): Promise<string[]> {
  const stream = await sliceStream(db, 'true');
  const seen: string[] = [];
  try {
    for (;;) {
      const chunk = await stream.fetchChunk();
      if (!chunk) break;
      const column = (index: number) => chunk.getColumnVector(index) as DuckDBVector<number>;
      for (let row = 0; row < chunk.rowCount; row++) {
        seen.push([0, 1, 2, 3, 8].map((index) => column(index).getItem(row)).join(' '));
      }
    }
  } finally {
    await stream.close();
  }
  return seen;
}

const expectedRows = (wallets: number[]) =>
  wallets.flatMap((w) => [
    `${w} 0 0 19001 ${w * 1000 + 1}`,
    `${w} 0 3 19001 ${w * 1000 + 1}`,
    `${w} 0 3 19002 ${w * 1000 + 2}`,
    `${w} 1 0 19001 ${w * 1000 + 1}`,
  ]);

test('every wallet once, in order, for any number of wallets against the ranges', async () => {
  for (const last of [1, 2, 3, 4, 5, 7, 8, 9, 12, 13]) {
    const wallets = Array.from({ length: last }, (_, i) => i + 1);
    const db = await database();
    try {
      await snapshotsOf(db, last, wallets);
      assert.equal(await readAll(db), expectedRows(wallets), `${last} wallets`);
    } finally {
      db.close();
    }
  }
});

test('wallets without snapshots (sub-accounts, empty histories) leave ranges empty, not the stream short', async () => {
  // 13 ids make ranges of 4 ids (0-3, 4-7, 8-11, 12-13): the second and third hold no snapshot.
  const db = await database();
  try {
    await snapshotsOf(db, 13, [1, 3, 13]);
    assert.equal(await readAll(db), expectedRows([1, 3, 13]));
  } finally {
    db.close();
  }
});

test('closing while the next range is being sorted interrupts that sort, cleanly, and the database stays usable', async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  const db = await database();
  try {
    // Enough rows that sorting a range takes a while: 4,000 wallets of 500 snapshots.
    await db.run(`CREATE TABLE addresses AS SELECT printf('0x%040x', i) AS address, i::INTEGER AS id FROM range(1, 4001) r(i)`);
    await db.run(`
      CREATE TABLE snapshots AS
      SELECT ${seriesKeySql('1 + i % 4000', '0', '0')} AS series, (i // 4000)::INTEGER AS number, i::BIGINT AS ts,
             (19000 + i % 365)::INTEGER AS day, i::HUGEINT AS raw_balance
      FROM range(2000000) r(i)`);
    // The second range is sorted on the connection sliceStream asks for: count its interrupts.
    let interrupts = 0;
    const connect = db.connect;
    db.connect = async () => {
      const connection = await connect();
      const interrupt = connection.interrupt.bind(connection);
      connection.interrupt = () => {
        interrupts++;
        interrupt();
      };
      return connection;
    };
    const stream = await sliceStream(db, 'true');
    // The first chunk starts the second range's sort (half a million rows) on the other connection.
    const first = await stream.fetchChunk();
    assert.ok(first && first.rowCount > 0);
    await stream.close();
    assert.is(interrupts, 1, 'the sort still running is interrupted, not waited for');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(unhandled, []);
    const [row] = await db.rows<{ n: number }>('SELECT count(*)::INTEGER AS n FROM snapshots');
    assert.is(row!.n, 2_000_000);
  } finally {
    process.off('unhandledRejection', onUnhandled);
    db.close();
  }
});

test.run();
