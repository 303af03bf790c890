/**
 * The files publish takes from a tree folder (publish/read-tree.ts): every file at any depth, by
 * its `/`-separated tree path, sorted; what a static host reads but the store does not apart; and
 * a tree holding anything but files and folders refused, naming the entry.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { listTreePaths } from '../publish/read-tree.ts';
import { tempDir, thrown } from './helpers/fixtures.ts';

function tree(files: Record<string, string>): string {
  const dir = tempDir('ws-read-tree-');
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

test("every file at any depth, by its tree path, in path order; the static hosts' files apart", async () => {
  const dir = tree({
    'v1/seasons.json': '[]',
    'v1/address/0xb/portfolio.json': '{}',
    'v1/address/0xa/points/history.json': '{"a":1}',
    'index.html': '<p>',
    _headers: '/*',
  });
  const { paths, unpublished } = await listTreePaths(dir, () => {});
  assert.equal(paths, ['index.html', 'v1/address/0xa/points/history.json', 'v1/address/0xb/portfolio.json', 'v1/seasons.json']);
  assert.equal(unpublished, ['_headers']);
});

test('a link in the tree is refused, naming it', async () => {
  const dir = tree({ 'v1/seasons.json': '[]' });
  fs.symlinkSync(path.join(dir, 'v1/seasons.json'), path.join(dir, 'v1/other.json'));
  const error = await thrown(() => listTreePaths(dir, () => {}));
  assert.match(error.message, 'v1/other.json is not a regular file; a built tree holds only files and folders');
});

test('a tree of many folders is listed on the threads: the same paths, and a link deep inside refused', async () => {
  const wallets = Array.from({ length: 700 }, (_, i) => `0x${String(i).padStart(40, '0')}`);
  const files: Record<string, string> = { 'v1/seasons.json': '[]', _redirects: '' };
  for (const wallet of wallets) {
    files[`v1/address/${wallet}/portfolio.json`] = '{}';
    files[`v1/address/${wallet}/points/history.json`] = '{}';
  }
  const dir = tree(files);
  const { paths, unpublished } = await listTreePaths(dir, () => {});
  assert.equal(
    paths,
    Object.keys(files)
      .filter((file) => file !== '_redirects')
      .sort(),
  );
  assert.equal(unpublished, ['_redirects']);
  fs.symlinkSync(path.join(dir, 'v1/seasons.json'), path.join(dir, `v1/address/${wallets[500]}/points/other.json`));
  const error = await thrown(() => listTreePaths(dir, () => {}));
  assert.match(
    error.message,
    `v1/address/${wallets[500]}/points/other.json is not a regular file; a built tree holds only files and folders`,
  );
});

test.run();
