/**
 * A wallet's address and a wallet-season's season are read once per id, alongside the large
 * ordered streams (build/stream.ts, IdCursor): every id asked for in ascending order gets its own
 * row's values, across chunks and over ids never asked for, and an id with no row is an error,
 * never another id's values.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { scratchDatabase } from './helpers/fixtures.ts';
import { IdCursor } from '../build/stream.ts';

const ROWS_SQL = `CREATE TABLE keyed AS SELECT (i * 3)::INTEGER AS id, printf('0x%040x', i) AS address, (i % 7)::INTEGER AS season FROM range(1, 10001) r(i) ORDER BY hash(i)`;

test('each id asked for in ascending order gets its own row, across chunks, skipping ids not asked for', async () => {
  const db = await scratchDatabase({ memoryLimit: '512MB' });
  try {
    await db.run(ROWS_SQL);
    const cursor = await IdCursor.open(db, 'the keyed rows', 'SELECT id, address, season FROM keyed ORDER BY id', (columns, row) => ({
      address: columns[1]!.getItem(row) as string,
      season: columns[2]!.getItem(row) as number,
    }));
    try {
      // Repeated ids, gaps within a chunk and a gap longer than a chunk (DuckDB's 2,048 rows).
      for (const i of [1, 1, 2, 5, 2000, 2001, 7000, 10000]) {
        assert.equal(await cursor.valueOf(i * 3), { address: `0x${i.toString(16).padStart(40, '0')}`, season: i % 7 }, `id ${i * 3}`);
      }
    } finally {
      cursor.close();
    }
  } finally {
    db.close();
  }
});

test('an id with no row, or asked for out of order, is an error that names it and the rows', async () => {
  const db = await scratchDatabase({ memoryLimit: '512MB' });
  try {
    await db.run(ROWS_SQL);
    const cursor = await IdCursor.open(db, 'the keyed rows', 'SELECT id, address FROM keyed ORDER BY id', (columns, row) =>
      columns[1]!.getItem(row),
    );
    try {
      assert.is(await cursor.valueOf(6), `0x${(2).toString(16).padStart(40, '0')}`);
      await cursor.valueOf(7).then(
        () => assert.unreachable('an id between two rows has no value'),
        (error: Error) => assert.is(error.message, 'the keyed rows: no row for id 7'),
      );
      // Asked out of order: the cursor is past it, and says so rather than reading to the end.
      await cursor.valueOf(3).then(
        () => assert.unreachable('an id behind the cursor has no value'),
        (error: Error) => assert.is(error.message, 'the keyed rows: no row for id 3'),
      );
    } finally {
      cursor.close();
    }
  } finally {
    db.close();
  }
});

test.run();
