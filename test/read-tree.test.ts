/**
 * The files publish takes from a tree folder (publish/read-tree.ts): every file at any depth, by
 * its `/`-separated tree path, sorted, each hashed; records and anything unpublished apart; and a
 * tree holding anything but files and folders refused, naming the entry.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { readTree } from '../publish/read-tree.ts';
import { tempDir, thrown } from './helpers/fixtures.ts';

function tree(files: Record<string, string>): string {
  const dir = tempDir('ws-read-tree-');
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

test('every file at any depth, by its tree path, in path order, each with its sha256', async () => {
  const dir = tree({ 'v1/seasons.json': '[]', 'v1/address/0xb/portfolio.json': '{}', 'v1/address/0xa/points/history.json': '{"a":1}', 'index.html': '<p>' });
  const { files } = await readTree(dir, () => {});
  assert.equal(files.map((file) => file.path), ['index.html', 'v1/address/0xa/points/history.json', 'v1/address/0xb/portfolio.json', 'v1/seasons.json']);
  const history = files[1]!;
  assert.is(history.size, 7);
  assert.is(history.sha256, crypto.createHash('sha256').update('{"a":1}').digest('hex'));
});

test('a link in the tree is refused, naming it', async () => {
  const dir = tree({ 'v1/seasons.json': '[]' });
  fs.symlinkSync(path.join(dir, 'v1/seasons.json'), path.join(dir, 'v1/other.json'));
  const error = await thrown(() => readTree(dir, () => {}));
  assert.match(error.message, 'v1/other.json is not a regular file; a built tree holds only files and folders');
});

test.run();
