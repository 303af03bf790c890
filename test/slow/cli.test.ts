/** The CLI as a real process: help, exit codes, stderr, the closing summary. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { balance, tempDir, treePaths, writeInputs, A, PINNED_NOW } from '../helpers/fixtures.ts';
import { ROOT, runCli } from '../helpers/process.ts';

test('--help lists the commands and exits 0', async () => {
  const result = await runCli(['--help']);
  assert.is(result.code, 0);
  for (const command of ['build', 'verify', 'serve']) assert.match(result.stdout, command);
  const build = await runCli(['build', '--help']);
  assert.is(build.code, 0);
  for (const option of ['--input', '--out', '--now', '--shard', '--allow-empty', '--allow-distant-now', '--threads'])
    assert.match(build.stdout, option);
});

test("--version and -V print package.json's version and exit 0", async () => {
  const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
  assert.match(version, /^\d+\.\d+\.\d+/);
  for (const flag of ['--version', '-V']) {
    const run = await runCli([flag]);
    assert.equal([run.code, run.stdout, run.stderr], [0, `${version}\n`, '']);
  }
});

test('usage errors exit 2', async () => {
  const result = await runCli(['build', '--bogus']);
  assert.is(result.code, 2);
  assert.match(result.stderr, "unknown option '--bogus'");
  assert.is((await runCli(['frobnicate'])).code, 2);
});

test('a successful build exits 0 and prints the summary; verify accepts the tree', async () => {
  const root = tempDir();
  const input = await writeInputs(path.join(root, 'input'), {
    balances: [balance({ address: A, block_number: 1, balance: '1' })],
    seasons: [{ season: 1, as_of: '2025-11-05' }],
  });
  const out = path.join(root, 'public');
  const result = await runCli(['build', '--input', input, '--out', out, '--now', PINNED_NOW]);
  assert.is(result.code, 0, result.stderr);
  assert.match(result.stdout, new RegExp(`built .*public: 1 wallet, ${treePaths(out).length} files, [\\d.]+ (B|KiB) in `));
  assert.match(result.stdout, 'asOf: daily 2025-11-20; leaderboards s1 null (0 participants)');
  assert.match(result.stdout, /warning: \d+ daily positions had no price/);
  const verify = await runCli(['verify', '--dir', out]);
  assert.is(verify.code, 0, verify.stderr);
  assert.match(verify.stdout, 'verified');
});

test('--summary-json writes the summary; a path that cannot be written fails before the build', async () => {
  const root = tempDir();
  const input = await writeInputs(path.join(root, 'input'), { balances: [balance({ address: A, block_number: 1, balance: '1' })] });
  const out = path.join(root, 'public');
  const file = path.join(root, 'ci', 'summary.json');
  const result = await runCli(['build', '--input', input, '--out', out, '--now', PINNED_NOW, '--summary-json', file]);
  assert.is(result.code, 0, result.stderr);
  const summary = JSON.parse(fs.readFileSync(file, 'utf8'));
  assert.equal(
    [summary.wallets, summary.files, summary.dailyAsOf, summary.lastClosedDay, summary.balanceRows],
    [1, 18, '2025-11-20', '2025-11-20', 1],
  );
  assert.equal(Object.keys(summary.stageSeconds).slice(0, 5), [
    'read inputs',
    'check values',
    'load inputs',
    'check relations',
    'number chains',
  ]);
  const blocked = path.join(root, 'ci', 'summary.json', 'nested.json');
  const refused = await runCli([
    'build',
    '--input',
    input,
    '--out',
    path.join(root, 'other'),
    '--now',
    PINNED_NOW,
    '--summary-json',
    blocked,
  ]);
  assert.is(refused.code, 1);
  assert.match(refused.stderr, `wallet-snapshot: --summary-json ${blocked} cannot be written (`);
  assert.not.ok(fs.existsSync(path.join(root, 'other')), 'the build ran before the summary path was checked');
  const folder = await runCli(['build', '--input', input, '--out', path.join(root, 'other'), '--now', PINNED_NOW, '--summary-json', root]);
  assert.is(folder.code, 1);
  assert.match(folder.stderr, `--summary-json ${root} cannot be written (it is a directory)`);
});

test('bad input and a bad --now exit 1 with a message and no stack', async () => {
  const root = tempDir();
  const input = await writeInputs(path.join(root, 'input'), { balances: [balance({ address: A, block_number: 1, balance: '-1' })] });
  const bad = await runCli(['build', '--input', input, '--out', path.join(root, 'out')]);
  assert.is(bad.code, 1);
  assert.match(bad.stderr, 'balances.parquet: column "balance": 1 row with a value that is not a non-negative integer below 10^38');
  assert.not.match(bad.stderr, '    at ');
  const now = await runCli(['build', '--input', input, '--now', 'soon']);
  assert.is(now.code, 1);
  assert.match(now.stderr, '--now "soon" is not an ISO 8601 instant');
  const shard = await runCli(['build', '--input', input, '--shard', '5/4']);
  assert.is(shard.code, 1);
  assert.match(shard.stderr, '--shard "5/4" is not K/N');
  const notFolder = await runCli(['build', '--input', path.join(input, 'balances.parquet')]);
  assert.is(notFolder.code, 1);
  assert.match(notFolder.stderr, 'balances.parquet is not a directory (it must be the folder holding the seven Parquet files)');
});

test('an option given a value it cannot take exits 1, before anything is read', async () => {
  // DuckDB would only say "Failed to set config", and would take a negative size as no limit.
  for (const size of ['lots', '-1GB', '0GB', '100']) {
    const result = await runCli(['build', '--memory-limit', size]);
    assert.is(result.code, 1, size);
    assert.match(result.stderr, `option '--memory-limit <size>' argument '${size}' is invalid. expected a positive size with a unit`);
  }
  const threads = await runCli(['build', '--threads', '0']);
  assert.is(threads.code, 1);
  assert.match(threads.stderr, "option '--threads <n>' argument '0' is invalid. expected a positive integer");
  const port = await runCli(['serve', '--port', 'http']);
  assert.is(port.code, 1);
  assert.match(port.stderr, "option '--port <n>' argument 'http' is invalid");
});

test('serve prints its URL and examples, answers, and stops cleanly on SIGTERM; a busy port exits 1', async () => {
  const root = tempDir();
  const input = await writeInputs(path.join(root, 'input'), {
    balances: [balance({ address: A, block_number: 1, balance: '1' })],
    seasons: [{ season: 1, as_of: null }],
  });
  const out = path.join(root, 'public');
  assert.is((await runCli(['build', '--input', input, '--out', out, '--now', PINNED_NOW])).code, 0);
  let url = '';
  const server = await runCli(['serve', '--dir', out, '--port', '0'], {
    onStdout: (text, child) => {
      const match = /at (http:\/\/127\.0\.0\.1:\d+)\n/.exec(text);
      if (match && !url && text.includes('/v1/leaderboard/s1')) {
        url = match[1]!;
        void fetch(`${url}/v1/leaderboard/s1`).then(async (answer) => {
          assert.is(answer.status, 200);
          const busy = await runCli(['serve', '--dir', out, '--port', url.split(':').pop()!]);
          assert.is(busy.code, 1);
          assert.match(busy.stderr, 'cannot listen on');
          child.kill('SIGTERM');
        });
      }
    },
  });
  assert.is(server.code, 0, server.stderr);
  assert.match(server.stdout, `/v1/address/${A}/portfolio/daily?from=2025-11-14&to=2025-11-20`);
  const missing = await runCli(['serve', '--dir', path.join(root, 'nothing')]);
  assert.is(missing.code, 1);
  assert.match(missing.stderr, 'holds no snapshot tree');
});

test('verify of a missing tree exits 1, saying the folder does not exist; of an empty folder, that it holds no record', async () => {
  const missing = path.join(tempDir(), 'nothing');
  const result = await runCli(['verify', '--dir', missing]);
  assert.is(result.code, 1);
  assert.is(
    result.stderr,
    `wallet-snapshot: tree directory ${missing} does not exist (set it with --dir DIR: the --out of wallet-snapshot build)\n`,
  );
  const empty = await runCli(['verify', '--dir', tempDir()]);
  assert.is(empty.code, 1);
  assert.match(empty.stderr, 'fails verification (2 problems, first listed)');
  assert.match(empty.stderr, '_snapshot/meta.json: missing');
});

test.run();
