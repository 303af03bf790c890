/**
 * The sharded workflow names its shard count three times (SHARDS, the matrix, one upload step per
 * shard folder): a count changed in one place only would leave a shard job without its folder.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const WORKFLOW = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '.github', 'workflows', 'nightly-sharded.yml');

test('nightly-sharded.yml: SHARDS, the matrix and the uploaded folders agree', () => {
  const text = fs.readFileSync(WORKFLOW, 'utf8');
  const shards = Number(/^\s*SHARDS:\s*(\d+)\s*$/m.exec(text)?.[1]);
  assert.ok(shards >= 1, 'SHARDS is set');
  const all = Array.from({ length: shards }, (_, i) => i + 1);
  const matrix = /^\s*shard:\s*\[([^\]]*)\]/m.exec(text)?.[1]?.split(',').map((entry) => Number(entry.trim()));
  assert.equal(matrix, all, 'the matrix runs one job per shard');
  const uploads = [...text.matchAll(/^\s*name: (shard-\d+-of-\d+)\n\s*path: night\/(shard-\d+-of-\d+)$/gm)].map((match) => [match[1], match[2]]);
  assert.equal(uploads, all.map((k) => [`shard-${k}-of-${shards}`, `shard-${k}-of-${shards}`]), 'prepare uploads each shard folder under its own name');
});

test.run();
