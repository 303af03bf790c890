/**
 * The light package, `wallet-snapshot-client`, as an app gets it: `npm pack ./packages/client`
 * (its prepack builds it from client/), installed from the tarball into an empty folder with an
 * empty HOME. It brings no dependency and well under 1 MB; an app imports it in Node and gets
 * the host's documents and typed errors (its own `ApiError` class, a timeout, an abort); a strict
 * TypeScript app type-checks against its declarations with nothing else installed; bundled and
 * minified it is within 5 KB gzipped; publint finds nothing. That it is the same JavaScript as
 * `wallet-snapshot/client`: test/slow/package.test.ts, which packs the whole package.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { build as esbuild } from 'esbuild';
import { publint } from 'publint';
import { tempDir } from '../helpers/fixtures.ts';
import { ROOT, userNpmEnv } from '../helpers/process.ts';

const work = tempDir('ws-client-package-');
const home = path.join(work, 'home');
const app = path.join(work, 'app');
fs.mkdirSync(home);
fs.mkdirSync(app);
const userEnv = userNpmEnv(home);

function run(command: string, args: string[], cwd: string, env: Record<string, string> = userEnv): SpawnSyncReturns<string> {
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  if (result.error) throw result.error;
  return result;
}

// The README's way: npm pack of the folder (its prepack builds dist/ from client/).
const packed = run('npm', ['run', 'pack:client', '--', '--pack-destination', work], ROOT, {
  PATH: process.env.PATH!,
  HOME: process.env.HOME ?? home,
});
assert.is(packed.status, 0, packed.stderr);
const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
const tarball = path.join(work, `wallet-snapshot-client-${version}.tgz`);
assert.ok(fs.existsSync(tarball), `npm pack wrote ${fs.readdirSync(work).join(', ')}`);
fs.writeFileSync(path.join(app, 'package.json'), `${JSON.stringify({ name: 'an-app', private: true, type: 'module' })}\n`);
const installed = run('npm', ['install', '--prefer-offline', tarball], app);
assert.is(installed.status, 0, installed.stderr);
const packageDir = path.join(app, 'node_modules', 'wallet-snapshot-client');

/** Every file under `dir` and its bytes. */
function bytesUnder(dir: string): number {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .reduce((sum, entry) => sum + fs.statSync(path.join(entry.parentPath, entry.name)).size, 0);
}

test('installed alone: that one package, no dependency, well under 1 MB, ESM with its declarations; publint finds nothing', async () => {
  const listed = run('npm', ['ls', '--all', '--parseable'], app);
  assert.is(listed.status, 0, listed.stderr);
  assert.equal(listed.stdout.trim().split('\n').slice(1), [packageDir]);
  assert.equal(
    fs.readdirSync(path.join(app, 'node_modules')).filter((name) => !name.startsWith('.')),
    ['wallet-snapshot-client'],
  );
  const manifest = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as Record<string, unknown>;
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies', 'bundleDependencies'])
    assert.is(manifest[field], undefined, field);
  assert.equal([manifest.name, manifest.version, manifest.type, manifest.license], ['wallet-snapshot-client', version, 'module', 'MIT']);
  const bytes = bytesUnder(packageDir);
  process.stdout.write(
    `  wallet-snapshot-client installed: ${bytes} bytes in ${fs.readdirSync(packageDir, { recursive: true }).length} entries\n`,
  );
  assert.ok(bytes < 100_000, `${bytes} bytes installed`);
  const files = fs.readdirSync(path.join(packageDir, 'dist')).sort();
  assert.equal(files, [
    'api-error.d.ts',
    'api-error.js',
    'call-limits.d.ts',
    'call-limits.js',
    'documents.d.ts',
    'endpoints.d.ts',
    'endpoints.js',
    'etag-memory.d.ts',
    'etag-memory.js',
    'index.d.ts',
    'index.js',
    'request.d.ts',
    'request.js',
  ]);
  assert.match(fs.readFileSync(path.join(packageDir, 'LICENSE'), 'utf8'), /^MIT License\n/);
  assert.match(fs.readFileSync(path.join(packageDir, 'README.md'), 'utf8'), 'npm install wallet-snapshot-client');
  const { messages } = await publint({ pkgDir: packageDir, pack: false, level: 'suggestion', strict: true });
  assert.equal(messages, []);
});

const SEASONS = { seasons: [{ season: 1, asOf: '2025-11-05', frozen: true, totalParticipants: 3 }] };

/** A loopback host: the seasons, a 400 with its sentence, and a path that never answers. */
async function withHost(body: (base: string) => Promise<void>): Promise<void> {
  const server = http.createServer((req, res) => {
    if (req.url === '/v1/seasons') {
      res.writeHead(200, { 'Content-Type': 'application/json', ETag: 'W/"1"' });
      return res.end(JSON.stringify(SEASONS));
    }
    if (req.url === '/v1/leaderboard/s99') {
      res.writeHead(400, { 'Content-Type': 'application/json' });
      return res.end('{"error":"The season \\"s99\\" is not a known season."}');
    }
    // Anything else: accepted, never answered.
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await body(`http://127.0.0.1:${(server.address() as { port: number }).port}`);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

const APP = `import { ApiError, createClient, DEFAULT_TIMEOUT } from 'wallet-snapshot-client';
const api = createClient({ baseUrl: process.argv[2] });
const failure = (error) => error instanceof ApiError
  ? { class: 'ApiError', kind: error.kind, status: error.status, error: error.error }
  : { name: error.name, message: error.message };
const leaving = new AbortController();
const aborted = api.points('0x${'1'.repeat(40)}', { signal: leaving.signal }).catch(failure);
setTimeout(() => leaving.abort(), 50);
console.log(JSON.stringify({
  seasons: await api.seasons(),
  again: await api.seasons(),
  unknown: await api.leaderboard(99).catch(failure),
  timeout: await api.leaderboard(1, { timeout: 100 }).catch(failure),
  aborted: await aborted,
  inverted: await api.daily('0x${'1'.repeat(40)}', { from: '2025-11-02', to: '2025-11-01' }).catch(failure),
  validateTrue: await createClient({ baseUrl: process.argv[2], validate: true }).seasons().catch((error) => error.message),
  defaultTimeout: DEFAULT_TIMEOUT,
}));
`;

test('an app imports it in Node: the documents, its ApiError with kind, status and sentence, a timeout, an abort, a RangeError', async () => {
  fs.writeFileSync(path.join(app, 'main.mjs'), APP);
  await withHost(async (base) => {
    const ran = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      // Asynchronously: the host is in this process.
      const child = spawn(process.execPath, [path.join(app, 'main.mjs'), base], {
        cwd: app,
        env: userEnv,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout!.on('data', (data) => (stdout += data));
      child.stderr!.on('data', (data) => (stderr += data));
      child.on('exit', (code) => resolve({ code, stdout, stderr }));
    });
    assert.is(ran.code, 0, ran.stderr);
    const results = JSON.parse(ran.stdout);
    assert.equal(results.seasons, SEASONS);
    assert.equal(results.again, SEASONS);
    assert.equal(results.unknown, { class: 'ApiError', kind: 'http', status: 400, error: 'The season "s99" is not a known season.' });
    assert.equal(results.timeout, { class: 'ApiError', kind: 'timeout', status: null, error: null });
    assert.equal(results.aborted, { name: 'AbortError', message: 'This operation was aborted' });
    assert.equal(results.inverted, {
      name: 'RangeError',
      message: 'from (2025-11-02) is later than to (2025-11-01); give from on or before to',
    });
    assert.match(
      results.validateTrue,
      "In a bundled app, a Worker or wallet-snapshot-client, pass the validator itself: import { validateDocument } from 'wallet-snapshot/client/validation'",
    );
    assert.is(results.defaultTimeout, 30_000);
  });
});

const TYPED_APP = `import { ApiError, createClient, type ApiErrorKind, type DailyPortfolio, type Leaderboard, type PointsHistory } from 'wallet-snapshot-client';

const api = createClient({ baseUrl: 'https://snapshot.example.com', timeout: 5_000, signal: new AbortController().signal });
export async function main(): Promise<string> {
  const daily: DailyPortfolio = await api.daily('0x${'1'.repeat(40)}', { from: new Date(), to: '2025-11-10', timeout: 100 });
  const board: Leaderboard = await api.leaderboard(1, { signal: AbortSignal.timeout(1_000) });
  const history: PointsHistory = await api.pointsHistory('0x${'1'.repeat(40)}');
  const rank: number | null = history.seasons[0]!.days[0]!.rank;
  try {
    await api.seasons();
  } catch (error) {
    if (error instanceof ApiError) {
      const kind: ApiErrorKind = error.kind;
      const status: number | null = error.status;
      const sentence: string | null = error.error;
      return \`\${kind} \${status} \${sentence}\`;
    }
  }
  return \`\${daily.days[0]!.positions[0]!.token} \${board.entries[0]!.rank} \${rank}\`;
}

export function neverCalled(): void {
  // @ts-expect-error a season is a number
  void api.leaderboard('s1');
  // @ts-expect-error from is a YYYY-MM-DD string or a Date
  void api.daily('0x', { from: 20251101 });
  // @ts-expect-error a timeout is milliseconds
  void api.seasons({ timeout: '5s' });
  // @ts-expect-error a kind is one of three
  const kind: ApiErrorKind = 'abort';
  // @ts-expect-error a position's token is one of the seven keys
  const token: DailyPortfolio['days'][number]['positions'][number]['token'] = 'eth';
  void kind;
  void token;
}
`;

test('a strict TypeScript app type-checks against its declarations alone (no zod, no skipLibCheck); its wrong calls are type errors', () => {
  const dir = path.join(app, 'typed');
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'main.ts'), TYPED_APP);
  const compilerOptions = {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noEmit: true,
    lib: ['ES2022', 'DOM'],
    types: [],
  };
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['main.ts'] }));
  const compiled = run(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], dir);
  assert.is(compiled.status, 0, compiled.stdout);
});

test('bundled and minified in an app (esbuild, no code splitting): within 5 KB gzipped, nothing but the package', async () => {
  const entry = path.join(app, 'bundled.mjs');
  fs.writeFileSync(
    entry,
    `import { ApiError, createClient } from 'wallet-snapshot-client';
const api = createClient({ baseUrl: 'https://api.example.com' });
const a = '0x${'1'.repeat(40)}';
try {
  console.log(await api.portfolio(a), await api.daily(a, { from: new Date() }), await api.leaderboard(2), await api.points(a),
    await api.pointsHistory(a), await api.seasons({ timeout: 1000 }));
} catch (error) {
  if (error instanceof ApiError) console.log(error.kind);
}
`,
  );
  const result = await esbuild({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    metafile: true,
    logLevel: 'silent',
    absWorkingDir: app,
  });
  const gzipped = zlib.gzipSync(result.outputFiles[0]!.contents, { level: 9 }).length;
  process.stdout.write(
    `  wallet-snapshot-client in an app: ${result.outputFiles[0]!.contents.length} bytes minified, ${gzipped} gzipped\n`,
  );
  assert.ok(gzipped <= 5 * 1024, `${gzipped} bytes gzipped`);
  const inputs = Object.keys(result.metafile.inputs).filter((input) => input !== 'bundled.mjs');
  assert.ok(
    inputs.every((input) => input.startsWith('node_modules/wallet-snapshot-client/dist/')),
    inputs.join(', '),
  );
});

test.run();
