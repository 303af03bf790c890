/** `npm run bench`: a bad or unknown option stops it at once with the usage, before any work. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './helpers/process.ts';

const bench = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/run.ts'), ...args], { cwd: ROOT, encoding: 'utf8' });

test('bad values and unknown options exit 2 with the usage', () => {
  for (const [args, message] of [
    [['--wallets', 'abc'], '--wallets "abc" is not a whole number of at least 1'],
    [['--wallets', '0'], '--wallets "0" is not a whole number of at least 1'],
    [['--server-seconds', '1.5'], '--server-seconds "1.5" is not a whole number of at least 1'],
    [['--bogus'], "Unknown option '--bogus'"],
  ] as const) {
    const result = bench(...args);
    assert.is(result.status, 2, args.join(' '));
    assert.match(result.stderr, `bench: ${message}`);
    assert.match(result.stderr, 'usage: npm run bench -- [--wallets N] [--seed S] [--server-seconds S] [--keep]');
  }
});

test.run();
