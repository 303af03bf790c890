/**
 * `publish` refuses, with exit 1 and the option the user typed, what no rerun could fix: a --dir
 * that does not exist or links to a removed build, and an endpoint with the bucket on its end (as
 * R2's dashboard shows the bucket's URL). Nothing is contacted: the refusals come first.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/fixtures.ts';
import { runCli } from '../helpers/process.ts';

const to = 's3://snapshots/prod';
// A port nothing listens on: a refusal must not depend on reaching it.
const endpoint = 'http://127.0.0.1:9';

test('--dir that does not exist', async () => {
  const missing = path.join(tempDir(), 'public');
  const result = await runCli(['publish', '--dir', missing, '--to', to, '--endpoint', endpoint]);
  assert.is(result.code, 1, result.stderr);
  assert.match(result.stderr, `--dir ${missing} does not exist`);
});

test('--dir that links to a removed build', async () => {
  const root = tempDir();
  fs.symlinkSync(path.join(root, '.public.builds', 'gone'), path.join(root, 'public'));
  const result = await runCli(['publish', '--dir', path.join(root, 'public'), '--to', to, '--endpoint', endpoint]);
  assert.is(result.code, 1, result.stderr);
  assert.match(result.stderr, /is a link to .*gone, which does not exist \(a removed build\?\)/);
});

test('--endpoint with the bucket on its end', async () => {
  const result = await runCli([
    'publish',
    '--dir',
    tempDir(),
    '--to',
    to,
    '--endpoint',
    'https://abc123.r2.cloudflarestorage.com/snapshots',
  ]);
  assert.is(result.code, 1, result.stderr);
  assert.match(
    result.stderr,
    '--endpoint https://abc123.r2.cloudflarestorage.com/snapshots: an endpoint is the server alone, without a path (the bucket snapshots goes in --to',
  );
  assert.match(result.stderr, 'give --endpoint https://abc123.r2.cloudflarestorage.com');
});

test('--commit with --dir, --version without --commit, a malformed id', async () => {
  const cases: [string[], RegExp][] = [
    [['publish', '--commit', '--dir', tempDir(), '--to', to], /--commit moves the pointer of what is stored already and takes no --dir/],
    [
      ['publish', '--version', '2025-11-20-0123456789abcdef', '--dir', tempDir(), '--to', to],
      /names the staged version to commit: give it with --commit/,
    ],
    [['publish', '--commit', 'yesterday', '--to', to], /"yesterday" is not a version id/],
  ];
  for (const [args, message] of cases) {
    const result = await runCli(args);
    assert.is(result.code, 1, `${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stderr, message);
  }
});

test.run();
