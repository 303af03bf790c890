/**
 * The dependency list tells the truth: knip (knip.json lists the entry points) reads every import
 * and script and fails on a declared package nothing uses, a used package not declared, or one
 * the build needs at run time declared only for development; and nothing is left unused.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './helpers/process.ts';

const knip = (...options: string[]) =>
  spawnSync(process.execPath, [path.join(ROOT, 'node_modules/knip/bin/knip.js'), '--no-progress', ...options], {
    cwd: ROOT,
    encoding: 'utf8',
  });

test('every declared package is used, and every package used is declared', () => {
  const result = knip('--dependencies');
  assert.is(result.status, 0, `${result.stdout}${result.stderr}`);
});

test('what the CLI, the Worker and the explorer need at run time is in dependencies (what the installed package gets)', () => {
  // The entries marked `!` in knip.json are the production ones; --strict ignores devDependencies.
  const result = knip('--dependencies', '--production', '--strict');
  assert.is(result.status, 0, `${result.stdout}${result.stderr}`);
});

test("nothing unused: no file, export or exported type that nothing imports (the package's public entries are knip.json entries)", () => {
  const result = knip('--include', 'files,exports,types,nsExports,nsTypes,enumMembers,duplicates');
  assert.is(result.status, 0, `${result.stdout}${result.stderr}`);
});

test.run();
