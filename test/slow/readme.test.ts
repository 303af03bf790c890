/**
 * The README shows what the commands print today: its quick start (`npm start`'s build and serve,
 * then the curl example) and its publish example are run here and compared line by line, and so
 * are docs/publishing.md's examples (a whole tree's publish, a shard's stage, the commit). What
 * changes from run to run (paths, instants, days, seconds, sizes, the port, version and build
 * ids) is compared by shape; every word and every count is compared as written. The examples of
 * docs/input.md (writing an input with the script it shows) and docs/hosting.md (a local S3
 * server, publish and `serve --from` against it) run as written too.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import net from 'node:net';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { tempDir } from '../helpers/fixtures.ts';
import { CLI, ROOT, runCli, stopGroup } from '../helpers/process.ts';
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
    PATH: '\\S+',
    INSTANT: '\\d{4}-\\d{2}-\\d{2}T[\\d:.]+Z',
    BUILD: '\\d{8}T\\d{6}Z-[0-9a-f]{4}',
    VERSION: '\\d{4}-\\d{2}-\\d{2}-[0-9a-f]{16}',
    DAY: '\\d{4}-\\d{2}-\\d{2}',
    SIZE: '\\d+(?:\\.\\d+)? (?:B|KiB|MiB|GiB)',
    SECONDS: '\\d+(?:\\.\\d+)?s',
    PORT: '\\d+',
    COUNT: '\\d+',
  };
  const source = text
    .split('\u0000')
    .map((part, i) => (i % 2 === 1 ? patterns[part]! : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`);
}

/**
 * Each shown line matches a printed line, in order (the README may trim lines it does not show);
 * a failure names every shown line left without a match, so that one run shows all that changed.
 */
function assertShows(shown: string[], printed: string[], what: string): void {
  let at = 0;
  const unmatched: string[] = [];
  for (const line of shown) {
    const shape = shapeOf(line);
    let found = at;
    while (found < printed.length && !shape.test(printed[found]!)) found++;
    if (found < printed.length) at = found + 1;
    else unmatched.push(line);
  }
  assert.equal(
    unmatched,
    [],
    `${what}: the document shows\n  ${unmatched.join('\n  ')}\nbut the command printed\n  ${printed.join('\n  ')}`,
  );
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
    assertShows(
      blockAfter('`npm start` prints'),
      [...built.stdout.trimEnd().split('\n'), ...built.stderr.trimEnd().split('\n'), serving],
      'npm start',
    );
    const [command, expected] = blockAfter('or ask the API:');
    const url = /curl -s (\S+)/.exec(command!)![1]!.replace('http://127.0.0.1:8080', /at (http:\/\/\S+)/.exec(serving)![1]!);
    assert.is(await (await fetch(url)).text(), expected);
  } finally {
    server.kill('SIGTERM');
  }
});

test("the app example: wallet-snapshot/client against the sample's server prints what the README shows", async () => {
  const section = readme.slice(readme.indexOf('### In an app'));
  const example = /```js\n([\s\S]*?)```/.exec(section)![1]!;
  const shown = blockAfter('prints, against `npm start`', section);
  const server = spawn(process.execPath, [CLI, 'serve', '--dir', out, '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let text = '';
      server.stdout.on('data', (data) => {
        text += data;
        const found = / at (http:\/\/\S+)/.exec(text);
        if (found) resolve(found[1]!);
      });
      server.once('exit', () => reject(new Error('serve stopped')));
    });
    // The light package's name as the repository's own sources (the installed package: test/slow/client-package.test.ts).
    const install = /```\n([\s\S]*?)```/.exec(section)![1]!.trim();
    assert.is(install, 'npm install wallet-snapshot-client', 'the apps section installs the light package');
    const script = path.join(tempDir('ws-readme-app-'), 'app.mjs');
    assert.ok(example.includes("from 'wallet-snapshot-client'"), 'the example imports the light package');
    const source = example.replace("'wallet-snapshot-client'", JSON.stringify(pathToFileURL(path.join(ROOT, 'client/index.ts')).href));
    assert.ok(source.includes("baseUrl: 'http://127.0.0.1:8080'"), "the example names the quick start's server");
    fs.writeFileSync(script, source.replace('http://127.0.0.1:8080', url));
    const ran = spawnSync(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, encoding: 'utf8' });
    assert.is(ran.status, 0, ran.stderr);
    assert.equal(ran.stdout.trimEnd().split('\n'), shown);
  } finally {
    server.kill('SIGTERM');
  }
});

test("the publish example: what the sample tree's first publish prints", async () => {
  const s3 = await startS3Server(undefined, 'wallet-snapshot');
  try {
    const published = await runCli(
      ['publish', '--dir', out, '--to', 's3://wallet-snapshot/prod', '--endpoint', s3.endpoint, '--keep', '7'],
      { env: S3_CREDENTIALS },
    );
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
  assert.is((await runCli(['build', '--out', whole, '--now', '2025-11-20T17:00:00Z', '--progress', 'quiet'])).code, 0);
  const shards = [1, 2, 3, 4].map((k) => path.join(folder, `shard-${k}`));
  for (const [i, out] of shards.entries())
    assert.is(
      (await runCli(['build', '--out', out, '--now', '2025-11-21T17:00:00Z', '--shard', `${i + 1}/4`, '--progress', 'quiet'])).code,
      0,
    );
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

/** The text of the first fenced block after `marker` in a page of docs/. */
function docBlock(page: string, marker: string): string {
  const text = fs.readFileSync(path.join(ROOT, 'docs', page), 'utf8');
  const at = text.indexOf(marker);
  assert.ok(at >= 0, `docs/${page} has no "${marker}"`);
  return /```\w*\n([\s\S]*?)```/.exec(text.slice(at + marker.length))![1]!;
}

/** A documented command line run here: `npx wallet-snapshot` is this checkout's CLI. */
const asHere = (line: string) => line.replaceAll('npx wallet-snapshot', `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)}`);

test('docs/input.md: its statements, run by the script it shows, write an input whose build gives the history it shows', () => {
  const folder = tempDir('ws-input-doc-');
  fs.writeFileSync(path.join(folder, 'exports.sql'), docBlock('input.md', '## Example: writing valid input with DuckDB'));
  fs.writeFileSync(path.join(folder, 'run-sql.mjs'), docBlock('input.md', '(`run-sql.mjs`, beside `exports.sql`)'));
  // The package's own dependencies, as in a repository that installed wallet-snapshot.
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(folder, 'node_modules'));
  const commands = docBlock('input.md', 'Then, from the folder holding both files:');
  const ran = spawnSync('bash', ['-euc', asHere(commands)], { cwd: folder, encoding: 'utf8' });
  assert.is(ran.status, 0, ran.stderr);
  const history = docBlock('input.md', '/portfolio.json`, is');
  assert.is(
    fs.readFileSync(path.join(folder, 'public/v1/address/0xa11ce00000000000000000000000000000000002/portfolio.json'), 'utf8'),
    history.trim(),
  );
  assert.not.ok(fs.existsSync(path.join(folder, 'public/v1/address/0xb0b0000000000000000000000000000000000001/portfolio.json')));
});

async function freePort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test('docs/hosting.md: the local S3 server it shows, publish to it, and serve --from it', async () => {
  const port = String(await freePort());
  const data = tempDir('ws-s3rver-doc-');
  const local = (line: string) =>
    asHere(line).replaceAll('127.0.0.1:9000', `127.0.0.1:${port}`).replaceAll('-p 9000', `-p ${port}`).replaceAll('/tmp/s3rver', data);
  const serverLine = docBlock('hosting.md', '### A local S3 server');
  // A process group of its own: npx and the server it starts stop together.
  // As in a terminal of its own: under `npx -p node@22 ...` the environment names npx's package
  // (npm_config_package), which the page's own npx would run instead of s3rver.
  const s3 = spawn('bash', ['-euc', local(serverLine)], {
    cwd: ROOT,
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, npm_config_package: undefined },
  });
  try {
    let up = false;
    for (let i = 0; i < 100 && !up; i++) {
      up = await fetch(`http://127.0.0.1:${port}/`).then(
        () => true,
        () => false,
      );
      if (!up) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.ok(up, 's3rver never answered');
    const [exports, publish, serve] = docBlock('hosting.md', 'Then, in another terminal:').trim().split('\n');
    const published = spawnSync('bash', ['-euc', local(`${exports}\n${publish}`).replaceAll('--dir public', `--dir ${out}`)], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    assert.is(published.status, 0, published.stderr);
    assert.match(published.stdout, 'to s3://wallet-snapshot/prod in ');
    const serving = spawn('bash', ['-euc', `${local(exports!)}\nexec ${local(serve!).replace('--port 8787', '--port 0')}`], {
      cwd: ROOT,
      detached: true,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let text = '';
        serving.stdout!.on('data', (chunk) => {
          text += chunk;
          const found = / at (http:\/\/\S+)/.exec(text);
          if (found) resolve(found[1]!);
        });
        serving.once('exit', (code) => reject(new Error(`serve --from exited with ${code}: ${text}`)));
      });
      const answer = await fetch(`${url}/v1/seasons`);
      assert.is(answer.status, 200);
      assert.is(await answer.text(), fs.readFileSync(path.join(out, 'v1/seasons.json'), 'utf8'));
    } finally {
      await stopGroup(serving);
    }
    // The same credentials on one line, as the page's serve --from example gives them.
    assert.match(
      fs.readFileSync(path.join(ROOT, 'docs/hosting.md'), 'utf8'),
      `${exports!.replace('export ', '')} npx wallet-snapshot serve --runtime workerd --from s3://wallet-snapshot/prod`,
    );
  } finally {
    try {
      process.kill(-s3.pid!, 'SIGKILL');
    } catch {
      // The server had stopped already: the assertion that failed says why.
    }
  }
});

test.run();
