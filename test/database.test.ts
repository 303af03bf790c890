/** The build's DuckDB database: the settings its memory figures depend on (docs/decisions.md, "Memory"). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { scratchDatabase } from './helpers/fixtures.ts';

test('the allocator returns freed memory on a background thread', async () => {
  const db = await scratchDatabase();
  try {
    const [row] = await db.rows<{ on: boolean }>("SELECT current_setting('allocator_background_threads') AS on");
    assert.is(row?.on, true);
  } finally {
    db.close();
  }
});

test.run();
