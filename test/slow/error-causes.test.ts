/**
 * A refusal made from a DuckDB or file-system error says what the user can act on, and with
 * `--debug` the error it was made from, in that error's own words (`caused by: ...`), also when
 * that error happened in a writing thread. Without `--debug` only the refusal is printed.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { A, everyTokenOnThreeChains, tempDir, writeInputs } from '../helpers/fixtures.ts';
import { runCli } from '../helpers/process.ts';

const NOW = '2025-11-21T17:00:00Z';

async function sampleCopy(root: string): Promise<string> {
  const input = path.join(root, 'input');
  fs.cpSync('data/sample', input, { recursive: true });
  return input;
}

test("a damaged Parquet file: the refusal names the file; --debug adds DuckDB's own error", async () => {
  const root = tempDir();
  const input = await sampleCopy(root);
  fs.writeFileSync(path.join(input, 'prices.parquet'), 'not a parquet file at all, just text long enough to have an end');
  const out = path.join(root, 'public');
  const plain = await runCli(['build', '--input', input, '--out', out, '--now', NOW]);
  assert.is(plain.code, 1, plain.stderr);
  assert.match(plain.stderr, 'wallet-snapshot: prices.parquet: cannot be read as a Parquet file (');
  assert.not.match(plain.stderr, 'caused by');
  const debug = await runCli(['build', '--input', input, '--out', out, '--now', NOW, '--debug']);
  assert.is(debug.code, 1, debug.stderr);
  // DuckDB's words, with the descriptor's path it was given (/proc/self/fd/N) that the refusal replaces by the file's.
  assert.match(debug.stderr, /\n {2}caused by: Error: Invalid Input Error: .*(magic bytes|Parquet)/);
});

test('two damaged files: --debug prints each cause', async () => {
  const root = tempDir();
  const input = await sampleCopy(root);
  fs.writeFileSync(path.join(input, 'prices.parquet'), 'not a parquet file at all, just text long enough to have an end');
  fs.writeFileSync(path.join(input, 'points.parquet'), 'neither is this one, which is also long enough to be read');
  const result = await runCli(['build', '--input', input, '--out', path.join(root, 'public'), '--now', NOW, '--debug']);
  assert.is(result.code, 1, result.stderr);
  assert.match(result.stderr, 'the input is incomplete, 2 problems');
  assert.match(result.stderr, 'caused by: AggregateError: 2 files could not be read');
  assert.is(result.stderr.match(/ {4}caused by: Error: Invalid Input Error: /g)?.length, 2, result.stderr);
});

test("--out inside a regular file: the refusal says where; --debug adds the system's ENOTDIR", async () => {
  const root = tempDir();
  fs.writeFileSync(path.join(root, 'a-file'), '');
  const out = path.join(root, 'a-file', 'public');
  const result = await runCli(['build', '--out', out, '--now', NOW, '--debug']);
  assert.is(result.code, 1, result.stderr);
  assert.match(result.stderr, `wallet-snapshot: --out ${out}: cannot create the work folder beside it`);
  assert.match(result.stderr, /\n {2}caused by: Error: ENOTDIR: not a directory/);
});

test("the disk refusing the file thread's writes: exit 4 across the thread, and --debug shows the thread's own error and stack", async () => {
  const root = tempDir();
  const out = path.join(root, 'public');
  // One wallet holding every token on three chains for a year: a daily document of about 800 KB,
  // which the file thread writes; 200 KB is the most any file may have (ulimit -f 400).
  const rows = everyTokenOnThreeChains(A);
  const input = await writeInputs(path.join(root, 'input'), { balances: rows });
  const result = await runCli(['build', '--input', input, '--out', out, '--now', NOW, '--debug'], { fileSizeLimit: 400 });
  assert.is(result.code, 4, result.stderr);
  assert.match(
    result.stderr,
    `wallet-snapshot: could not write the new tree or its scratch files beside ${out} (document or file thread: EFBIG: file too large, write)`,
  );
  assert.match(result.stderr, /\n {2}caused by: Error: EFBIG: file too large, write\n\s+at .*\n[\s\S]*file-thread\.ts/);
});

test('serve on a port in use: "cannot listen"; --debug adds the system\'s EADDRINUSE', async () => {
  const root = tempDir();
  const out = path.join(root, 'public');
  assert.is((await runCli(['build', '--out', out, '--now', NOW])).code, 0);
  const holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const port = (holder.address() as net.AddressInfo).port;
  try {
    const result = await runCli(['serve', '--dir', out, '--port', String(port), '--debug']);
    assert.is(result.code, 1, result.stderr);
    assert.match(result.stderr, `wallet-snapshot: cannot listen on 127.0.0.1:${port}: listen EADDRINUSE`);
    assert.match(result.stderr, `\n  caused by: Error: listen EADDRINUSE: address already in use 127.0.0.1:${port}`);
  } finally {
    holder.close();
  }
});

test.run();
