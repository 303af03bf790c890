/** The build's DuckDB database: the settings its memory figures depend on (docs/decisions.md, "Memory"). */
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openDatabase } from '../build/database.ts';
import { tempDir } from './helpers/fixtures.ts';

test('the allocator returns freed memory on a background thread', async () => {
  const root = tempDir();
  const db = await openDatabase({ file: path.join(root, 'test.duckdb'), tempDir: path.join(root, 'spill'), threads: 2, memoryLimit: '256MB' });
  try {
    const [row] = await db.rows<{ on: boolean }>("SELECT current_setting('allocator_background_threads') AS on");
    assert.is(row?.on, true);
  } finally {
    db.close();
  }
});

test.run();
