/**
 * The README shows what the commands print today: its quick start (`npm start`'s build and serve,
 * then the curl example) and its publish example are run here and compared line by line, and so
 * are docs/publishing.md's examples (a whole tree's publish, a shard's stage, the commit). What
 * changes from run to run (paths, instants, days, seconds, sizes, the port, version and build
 * ids) is compared by shape; every word and every count is compared as written.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/fixtures.ts';
import { CLI, ROOT, runCli } from '../helpers/process.ts';
import { S3_CREDENTIALS, startS3Server } from '../helpers/s3-server.ts';

const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const publishing = fs.readFileSync(path.join(ROOT, 'docs/publishing.md'), 'utf8');

/** The lines of the first fenced block after `marker` (in the README, or the document given). */
function blockAfter(marker: string, document = readme): string[] {
  const at = document.indexOf(marker);
  assert.ok(at >= 0, `the document has no "${marker}"`);
  const match = /```\n([\s\S]*?)```/.exec(document.slice(at + marker.length));
  return match![1]!.trimEnd().split('\n');
}

/** A README line as a pattern: what varies between runs matches by its shape. */
function shapeOf(line: string): RegExp {
  const wildcards: [RegExp, string][] = [
    [/ \/[^\s:]+/g, ' \u0000PATH\u0000'],
    [/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g, '\u0000INSTANT\u0000'],
    [/\d{8}T\d{6}Z-[0-9a-f]{4}/g, '\u0000BUILD\u0000'],
    [/\d{4}-\d{2}-\d{2}-[0-9a-f]{16}/g, '\u0000VERSION\u0000'],
    [/\d{4}-\d{2}-\d{2}/g, '\u0000DAY\u0000'],
    [/\d+(?:\.\d+)? (?:B|KiB|MiB|GiB)\b/g, '\u0000SIZE\u0000'],
    [/\b\d+(?:\.\d+)?s\b/g, '\u0000SECONDS\u0000'],
    [/:8080\b/g, ':\u0000PORT\u0000'],
    // Positions without a price grow with every closed day for a token never priced.
    [/warning: \d+ daily positions/g, 'warning: \u0000COUNT\u0000 daily positions'],
  ];
  let text = line;
  for (const [pattern, name] of wildcards) text = text.replace(pattern, name);
  const patterns: Record<string, string> = {
    PATH: '\\S+', INSTANT: '\\d{4}-\\d{2}-\\d{2}T[\\d:.]+Z', BUILD: '\\d{8}T\\d{6}Z-[0-9a-f]{4}', VERSION: '\\d{4}-\\d{2}-\\d{2}-[0-9a-f]{16}',
    DAY: '\\d{4}-\\d{2}-\\d{2}', SIZE: '\\d+(?:\\.\\d+)? (?:B|KiB|MiB|GiB)', SECONDS: '\\d+(?:\\.\\d+)?s', PORT: '\\d+', COUNT: '\\d+',
  };
  const source = text.split('\u0000').map((part, i) => (i % 2 === 1 ? patterns[part]! : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('');
  return new RegExp(`^${source}$`);
}

/** Each shown line matches a printed line, in order (the README may trim lines it does not show). */
function assertShows(shown: string[], printed: string[], what: string): void {
  let at = 0;
  for (const line of shown) {
    const shape = shapeOf(line);
    while (at < printed.length && !shape.test(printed[at]!)) at++;
    assert.ok(at < printed.length, `${what}: the README shows\n  ${line}\nbut the command printed\n  ${printed.join('\n  ')}`);
    at++;
  }
}

const out = path.join(tempDir('ws-readme-'), 'public');

test('the quick start: what npm start prints, and the curl example', async () => {
  const built = await runCli(['build', '--out', out]);
  assert.is(built.code, 0, built.stderr);
  const server = spawn(process.execPath, [CLI, 'serve', '--dir', out, '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const serving = await new Promise<string>((resolve, reject) => {
      let text = '';
      server.stdout.on('data', (data) => {
        text += data;
        if (text.includes('\n')) resolve(text.split('\n')[0]!);
      });
      server.once('exit', () => reject(new Error('serve stopped')));
    });
    assertShows(blockAfter('`npm start` prints'), [...built.stdout.trimEnd().split('\n'), ...built.stderr.trimEnd().split('\n'), serving], 'npm start');
    const [command, expected] = blockAfter('or ask the API:');
    const url = /curl -s (\S+)/.exec(command!)![1]!.replace('http://127.0.0.1:8080', /at (http:\/\/\S+)/.exec(serving)![1]!);
    assert.is(await (await fetch(url)).text(), expected);
  } finally {
    server.kill('SIGTERM');
  }
});

test('the publish example: what the sample tree\'s first publish prints', async () => {
  const s3 = await startS3Server(undefined, 'wallet-snapshot');
  try {
    const published = await runCli(['publish', '--dir', out, '--to', 's3://wallet-snapshot/prod', '--endpoint', s3.endpoint, '--keep', '7'], { env: S3_CREDENTIALS });
    assert.is(published.code, 0, published.stderr);
    const shown = blockAfter('--to s3://wallet-snapshot/prod --endpoint https://<ACCOUNT_ID>.r2.cloudflarestorage.com --keep 7\n```');
    const printed = published.stdout.trimEnd().split('\n');
    assert.is(shown.length, printed.length, `the README shows every line publish prints:\n  ${printed.join('\n  ')}`);
    assertShows(shown, printed, 'publish');
  } finally {
    await s3.close();
  }
});

test('docs/publishing.md: the sample published whole, then as 4 shards staged and committed', async () => {
  const folder = tempDir('ws-publishing-');
  const whole = path.join(folder, 'whole');
  assert.is((await runCli(['build', '--out', whole, '--now', '2026-11-20T17:00:00Z', '--progress', 'quiet'])).code, 0);
  const shards = [1, 2, 3, 4].map((k) => path.join(folder, `shard-${k}`));
  for (const [i, out] of shards.entries()) assert.is((await runCli(['build', '--out', out, '--now', '2026-11-21T17:00:00Z', '--shard', `${i + 1}/4`, '--progress', 'quiet'])).code, 0);
  const s3 = await startS3Server(undefined, 'wallet-snapshot');
  // The documents show R2's endpoint; the run names the local server's.
  const asShown = (text: string) => text.replaceAll(s3.endpoint, 'https://<ACCOUNT_ID>.r2.cloudflarestorage.com').trimEnd().split('\n');
  try {
    const where = ['--to', 's3://wallet-snapshot/prod', '--endpoint', s3.endpoint];
    const published = await runCli(['publish', '--dir', whole, ...where, '--keep', '7'], { env: S3_CREDENTIALS });
    assert.is(published.code, 0, published.stderr);
    const shownPublish = blockAfter('goes to stdout (the bundled sample', publishing);
    assert.is(shownPublish.length, asShown(published.stdout).length);
    assertShows(shownPublish, asShown(published.stdout), 'publish');
    const staged = [];
    for (const out of shards) {
      const stage = await runCli(['publish', '--dir', out, ...where, '--progress', 'quiet'], { env: S3_CREDENTIALS });
      assert.is(stage.code, 0, stage.stderr);
      staged.push(stage.stdout);
    }
    const shownStage = blockAfter('A stage prints (the bundled sample', publishing);
    assert.is(shownStage.length, asShown(staged[1]!).length);
    assertShows(shownStage, asShown(staged[1]!), 'stage');
    const committed = await runCli(['publish', '--commit', ...where, '--keep', '7'], { env: S3_CREDENTIALS });
    assert.is(committed.code, 0, committed.stderr);
    const shownCommit = blockAfter('and the commit (here with `--keep 7`', publishing);
    assert.is(shownCommit.length, asShown(committed.stdout).length);
    assertShows(shownCommit, asShown(committed.stdout), 'commit');
  } finally {
    await s3.close();
  }
});

test.run();
