/**
 * The package people install: `npm pack` of this repository, installed into an empty folder with
 * Node alone (an empty HOME, nothing but the tarball and the npm registry), runs every command
 * through `npx wallet-snapshot` from its compiled JavaScript, with no TypeScript toolchain among
 * what it installs, and writes the very tree the repository writes from its sources (here, and
 * from a checkout in another folder). Its Worker entry, re-exported by a user's own Worker and
 * bundled by wrangler from the configuration docs/hosting.md shows, serves a tree published with
 * the prefix that configuration names. One pack and one install serve the whole suite; npm reads
 * the machine's cache first (`--prefer-offline`).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Miniflare } from 'miniflare';
import { publint } from 'publint';
import { tempDir } from '../helpers/fixtures.ts';
import { ROOT, stopGroup, userNpmEnv } from '../helpers/process.ts';
import { S3_CREDENTIALS, startS3Server } from '../helpers/s3-server.ts';
import { generateDataset } from '../../data/generate.ts';
import { createStorageClient } from '../../publish/storage.ts';
import { parseLocation } from '../../publish/location.ts';
import { readPointer } from '../../publish/live-pointer.ts';
import { readLiveVersion } from '../../publish/read-version.ts';
import { POINTER_CACHE_CONTROL, POINTER_KEY } from '../../tree/bucket.ts';
import { JSON_CONTENT_TYPE } from '../../tree/http-headers.ts';
import { SEASONS_FILE } from '../../tree/layout.ts';
import { COMPATIBILITY_DATE } from '../../preview/workerd.ts';
import { type LocalBucket, sturdyBucket } from '../../preview/local-bucket.ts';

const NOW = '2025-11-21T17:00:00Z';
const work = tempDir('ws-package-');
const home = path.join(work, 'home');
const user = path.join(work, 'programme');
fs.mkdirSync(home);
fs.mkdirSync(user);
const userEnv = userNpmEnv(home);

function run(command: string, args: string[], options: { cwd: string; env?: Record<string, string> }): SpawnSyncReturns<string> {
  const result = spawnSync(command, args, {
    cwd: options.cwd,
    env: { ...userEnv, ...options.env },
    encoding: 'utf8',
    maxBuffer: 64 * 2 ** 20,
  });
  if (result.error) throw result.error;
  return result;
}
const npx = (args: string[], env: Record<string, string> = {}) => run('npx', ['wallet-snapshot', ...args], { cwd: user, env });

// One pack (prepack compiles and bundles into dist/) and one install for every test below.
const packed = run('npm', ['pack', '--pack-destination', work], {
  cwd: ROOT,
  env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? home },
});
assert.is(packed.status, 0, packed.stderr);
const tarball = path.join(work, fs.readdirSync(work).find((name) => name.endsWith('.tgz'))!);
const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
fs.writeFileSync(path.join(user, 'package.json'), `${JSON.stringify({ name: 'programme', private: true, type: 'module' })}\n`);
const installed = run('npm', ['install', '--prefer-offline', tarball], { cwd: user });
assert.is(installed.status, 0, installed.stderr);
const packageDir = path.join(user, 'node_modules', 'wallet-snapshot');

test('the tarball installs with Node alone: no TypeScript toolchain among what it installs, no source, a licence, publint finds nothing', async () => {
  assert.is(path.basename(tarball), `wallet-snapshot-${version}.tgz`);
  assert.not.match(installed.stderr, 'EBADENGINE');
  const listed = run('npm', ['ls', '--all', '--parseable'], { cwd: user });
  assert.is(listed.status, 0, listed.stderr);
  const names = new Set(
    listed.stdout
      .trim()
      .split('\n')
      .map((line) => line.split(`${path.sep}node_modules${path.sep}`).at(-1)!),
  );
  for (const toolchain of ['tsx', 'typescript', 'esbuild', 'ts-node', '@swc/core', 'wrangler'])
    assert.not.ok(names.has(toolchain), `${toolchain} is installed`);
  assert.ok(names.has('@duckdb/node-api') && names.has('miniflare'), 'the run-time dependencies are installed');
  const files = fs.readdirSync(packageDir, { recursive: true }).map(String);
  assert.equal(
    files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts')),
    [],
  );
  assert.ok(files.includes(path.join('dist', 'server', 'worker.d.ts')));
  for (const file of ['index.js', 'index.d.ts', 'validation.js', 'validation.d.ts']) {
    assert.ok(files.includes(path.join('dist', 'client', file)), `dist/client/${file}`);
  }
  assert.ok(files.includes(path.join('dist', 'build', 'write', 'document-bytes.wasm')));
  assert.ok(files.includes(path.join('dist', 'tree', 'number-texts.wasm')));
  const manifest = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as Record<string, unknown>;
  assert.is(manifest.license, 'MIT');
  assert.is(manifest.private, undefined);
  assert.match(fs.readFileSync(path.join(packageDir, 'LICENSE'), 'utf8'), /^MIT License\n/);
  const { messages } = await publint({ pkgDir: packageDir, pack: false, level: 'suggestion', strict: true });
  assert.equal(messages, []);
});

const input = path.join(work, 'exports');
// Above 1,000 wallet folders verify runs its threads: every kind of thread runs from the package.
await generateDataset({
  outDir: input,
  wallets: 1200,
  seed: 37,
  startDate: '2025-08-01',
  days: 90,
  seasonOneEnd: '2025-09-15',
  rowsPerWallet: 3,
});

/** Every file under `dir`, with its bytes. */
function treeFiles(dir: string): Map<string, Buffer> {
  const real = fs.realpathSync(dir);
  const files = new Map<string, Buffer>();
  for (const entry of fs.readdirSync(real, { recursive: true, withFileTypes: true })) {
    if (!entry.isDirectory())
      files.set(path.relative(real, path.join(entry.parentPath, entry.name)), fs.readFileSync(path.join(entry.parentPath, entry.name)));
  }
  return files;
}

function assertSameTree(actual: string, expected: string, what: string): void {
  const [a, b] = [treeFiles(actual), treeFiles(expected)];
  assert.equal([...a.keys()].sort(), [...b.keys()].sort(), what);
  const differing = [...a].filter(([file, bytes]) => !bytes.equals(b.get(file)!)).map(([file]) => file);
  assert.equal(differing, [], what);
}

/** The sample the package carries, copied into the user's repository: the tree served and published below. */
const sampleTree = path.join(user, 'public');

test('npx wallet-snapshot --version, build and verify run from the package, and write the tree the sources write, in any folder', () => {
  const shown = npx(['--version']);
  assert.is(shown.status, 0, shown.stderr);
  assert.is(shown.stdout, `${version}\n`);
  fs.cpSync(path.join(packageDir, 'data', 'sample'), path.join(user, 'sample'), { recursive: true });
  const sample = npx(['build', '--input', 'sample', '--out', 'public', '--now', NOW]);
  assert.is(sample.status, 0, sample.stderr);
  assert.match(sample.stdout, `built ${sampleTree}: 40 wallets, ${treeFiles(sampleTree).size} files, `);
  const out = path.join(user, 'large');
  const built = npx(['build', '--input', input, '--out', out, '--now', NOW, '--threads', '2']);
  assert.is(built.status, 0, built.stderr);
  assert.match(built.stdout, /: \d{3,4} wallets, /);
  const verified = npx(['verify', '--dir', out]);
  assert.is(verified.status, 0, verified.stderr);
  assert.match(verified.stdout, `verified ${out}: the whole tree`);
  // The repository from its sources, here and from a copy in another folder (esbuild named the
  // explorer's script by a hash of its path too, so two checkouts wrote two different trees).
  const fromSources = path.join(work, 'from-sources', 'public');
  const here = run(
    process.execPath,
    [path.join(ROOT, 'bin/wallet-snapshot.js'), 'build', '--input', input, '--out', fromSources, '--now', NOW],
    { cwd: ROOT },
  );
  assert.is(here.status, 0, here.stderr);
  const checkout = path.join(work, 'another-checkout');
  for (const file of run('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT }).stdout.trim().split('\n')) {
    if (!fs.existsSync(path.join(ROOT, file))) continue;
    fs.mkdirSync(path.dirname(path.join(checkout, file)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, file), path.join(checkout, file));
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(checkout, 'node_modules'));
  const elsewhere = path.join(work, 'elsewhere', 'public');
  const there = run(
    process.execPath,
    [path.join(checkout, 'bin/wallet-snapshot.js'), 'build', '--input', input, '--out', elsewhere, '--now', NOW],
    { cwd: checkout },
  );
  assert.is(there.status, 0, there.stderr);
  assertSameTree(elsewhere, fromSources, 'a checkout in another folder');
  assertSameTree(out, fromSources, 'the installed package');
});

test("npx wallet-snapshot prepare, then build --prepared of one shard's folder, from the package: the tree the sources write for that shard", () => {
  const night = path.join(user, 'night');
  const prepared = npx(['prepare', '--input', input, '--out', night, '--shards', '2', '--now', NOW, '--threads', '2']);
  assert.is(prepared.status, 0, prepared.stderr);
  assert.match(prepared.stdout, `prepared ${night}: 2 shards`);
  const out = path.join(user, 'shard-2');
  const built = npx(['build', '--prepared', path.join(night, 'shard-2-of-2'), '--out', out, '--threads', '2']);
  assert.is(built.status, 0, built.stderr);
  const fromSources = path.join(work, 'from-sources-shard-2', 'public');
  const sharded = run(
    process.execPath,
    [path.join(ROOT, 'bin/wallet-snapshot.js'), 'build', '--input', input, '--out', fromSources, '--now', NOW, '--shard', '2/2'],
    { cwd: ROOT },
  );
  assert.is(sharded.status, 0, sharded.stderr);
  assertSameTree(out, fromSources, 'shard 2 of 2 from the package, prepared');

  // Packed, as the sharded workflow builds it: the archives proved by verify, from the package too.
  const packed = path.join(user, 'shard-2-packed');
  const built2 = npx(['build', '--prepared', path.join(night, 'shard-2-of-2'), '--packed', '--out', packed, '--threads', '2']);
  assert.is(built2.status, 0, built2.stderr);
  assert.ok(fs.existsSync(path.join(packed, 'packed.json')), 'a packed folder');
  const verified = npx(['verify', '--dir', packed, '--shard', '2/2']);
  assert.is(verified.status, 0, verified.stderr);
  assert.match(verified.stdout, 'shard 2 of 2 as the build recorded it');
});

/** `npx wallet-snapshot serve ...` until `stop()`: its URL, from the line it prints. */
async function serve(args: string[]): Promise<{ url: string; stop(): Promise<void> }> {
  // A process group of its own, so that the test stops npx and all it started.
  const child = spawn('npx', ['wallet-snapshot', 'serve', ...args, '--port', '0'], {
    cwd: user,
    env: userEnv,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (data) => (stderr += data));
  const url = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout!.on('data', (data) => {
      text += data;
      const found = / at (http:\/\/\S+)/.exec(text);
      if (found) resolve(found[1]!);
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
  });
  return {
    url,
    stop: () => stopGroup(child),
  };
}

test('npx wallet-snapshot serve, on Node and in workerd, answers from the package: the documents and the explorer page', async () => {
  const out = sampleTree;
  const seasons = fs.readFileSync(path.join(out, SEASONS_FILE), 'utf8');
  for (const runtime of ['node', 'workerd']) {
    const server = await serve(['--dir', out, '--runtime', runtime]);
    try {
      const answer = await fetch(`${server.url}/v1/seasons`);
      assert.is(answer.status, 200, runtime);
      assert.is(await answer.text(), seasons, runtime);
      const page = await (await fetch(`${server.url}/`)).text();
      const script = /src="(explorer\/app-[0-9a-f]{16}\.js)"/.exec(page);
      assert.ok(script, `${runtime}: the page names its script`);
      const asset = await fetch(`${server.url}/${script![1]}`);
      assert.is(asset.status, 200, runtime);
      assert.is(await asset.text(), fs.readFileSync(path.join(out, script![1]!), 'utf8'), runtime);
    } finally {
      await server.stop();
    }
  }
});

/** An app of the user's: every function of wallet-snapshot/client, the wrong calls marked as the type errors they are. */
const CLIENT_APP = `import { ApiError, createClient, type DailyPortfolio, type Leaderboard } from 'wallet-snapshot/client';
import { validateDocument } from 'wallet-snapshot/client/validation';

const [baseUrl, address] = process.argv.slice(2) as [string, string];
const api = createClient({ baseUrl });
const checked = createClient({ baseUrl, validate: true });
const bundled = createClient({ baseUrl, validate: validateDocument });
const daily: DailyPortfolio = await api.daily(address, { from: new Date(Date.UTC(2025, 10, 1)), to: '2025-11-10' });
const leaderboard: Leaderboard = await checked.leaderboard(1);
const results = {
  portfolio: await api.portfolio(address.toUpperCase().replace('0X', '0x')),
  daily,
  leaderboard,
  points: await bundled.points(address),
  pointsHistory: await checked.pointsHistory(address, { from: '2025-11-01' }),
  seasons: await api.seasons(),
  error: await api.leaderboard(99).catch((error: unknown) =>
    error instanceof ApiError ? { status: error.status, message: error.message } : String(error)),
};
console.log(JSON.stringify(results));

function neverCalled(): void {
  // @ts-expect-error a season is a number
  void api.leaderboard('s1');
  // @ts-expect-error from is a YYYY-MM-DD string or a Date
  void api.daily(address, { from: 20251101 });
  // @ts-expect-error rank is a number
  const rank: string = leaderboard.entries[0]!.rank;
  // @ts-expect-error a document has no such field
  void daily.total;
  void rank;
}
void neverCalled;
`;

test("an app imports wallet-snapshot/client from the package: typechecked (its wrong calls are type errors), run in Node, each result the host's", async () => {
  const app = path.join(user, 'app');
  fs.mkdirSync(app, { recursive: true });
  fs.writeFileSync(path.join(app, 'main.ts'), CLIENT_APP);
  const compilerOptions = {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    outDir: 'out',
    types: ['node'],
    typeRoots: [path.join(ROOT, 'node_modules/@types')],
  };
  const tsconfig = { compilerOptions, files: ['main.ts'] };
  fs.writeFileSync(path.join(app, 'tsconfig.json'), JSON.stringify(tsconfig));
  // This repository's pinned TypeScript, on the user's app (no skipLibCheck: the package's declarations are checked too).
  const compiled = run(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: app });
  assert.is(compiled.status, 0, compiled.stdout);
  const leader = JSON.parse(fs.readFileSync(path.join(sampleTree, 'v1/leaderboard/s2.json'), 'utf8')).entries[0].user as string;
  const server = await serve(['--dir', sampleTree]);
  try {
    const ran = run(process.execPath, [path.join(app, 'out', 'main.js'), server.url, leader], { cwd: user });
    assert.is(ran.status, 0, ran.stderr);
    const results = JSON.parse(ran.stdout);
    const document = async (url: string) => (await fetch(`${server.url}${url}`)).json();
    assert.equal(results.portfolio, await document(`/v1/address/${leader}/portfolio`));
    assert.equal(results.daily, await document(`/v1/address/${leader}/portfolio/daily?from=2025-11-01&to=2025-11-10`));
    assert.equal(results.leaderboard, await document('/v1/leaderboard/s1'));
    assert.equal(results.points, await document(`/v1/address/${leader}/points`));
    assert.equal(results.pointsHistory, await document(`/v1/address/${leader}/points/history?from=2025-11-01`));
    assert.equal(results.seasons, await document('/v1/seasons'));
    const refusal = await document('/v1/leaderboard/s99');
    assert.equal(results.error, { status: 400, message: `GET ${server.url}/v1/leaderboard/s99 answered 400: ${refusal.error}` });
  } finally {
    await server.stop();
  }
});

test('wallet-snapshot-client, the light package, is the same JavaScript as wallet-snapshot/client, file for file', () => {
  // Its prepack's build, into packages/client/dist (test/slow/client-package.test.ts packs and installs it).
  const built = run(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/build-client-package.ts')], { cwd: ROOT });
  assert.is(built.status, 0, built.stderr);
  const light = path.join(ROOT, 'packages', 'client', 'dist');
  const scripts = fs.readdirSync(light).filter((file) => file.endsWith('.js'));
  assert.equal(scripts.sort(), ['api-error.js', 'call-limits.js', 'endpoints.js', 'etag-memory.js', 'index.js', 'request.js']);
  for (const file of scripts) {
    assert.is(
      fs.readFileSync(path.join(light, file), 'utf8'),
      fs.readFileSync(path.join(packageDir, 'dist', 'client', file), 'utf8'),
      file,
    );
  }
  // What the whole package has beside them is the schemas' validator, which the light package leaves out.
  assert.equal(
    fs.readdirSync(path.join(packageDir, 'dist', 'client')).filter((file) => file.endsWith('.js') && !scripts.includes(file)),
    ['validation.js'],
  );
});

const hosting = fs.readFileSync(path.join(ROOT, 'docs', 'hosting.md'), 'utf8');

/** The text of the first fenced block after `marker` in docs/hosting.md. */
function hostingBlock(marker: string): string {
  const at = hosting.indexOf(marker);
  assert.ok(at >= 0, `docs/hosting.md has no "${marker}"`);
  return /```\w*\n([\s\S]*?)```/.exec(hosting.slice(at + marker.length))![1]!;
}

test("publish from the package to a local S3 server; a user's Worker re-exporting wallet-snapshot/worker, bundled by wrangler from docs/hosting.md's configuration, serves it", async () => {
  const workerSource = hostingBlock('`worker.js`:');
  const wranglerToml = hostingBlock('`wrangler.toml`:');
  const bucketName = /^bucket_name = "([^"]+)"$/m.exec(wranglerToml)![1]!;
  const prefix = /^TREE_PREFIX = "([^"]*)"$/m.exec(wranglerToml)![1]!;
  const compatibilityDate = /^compatibility_date = "([^"]+)"$/m.exec(wranglerToml)![1]!;
  // The publish command the page shows puts the tree where the configuration reads it; so does
  // the README's for this repository's own wrangler.toml.
  assert.match(hosting, `npx wallet-snapshot publish --dir public --to s3://${bucketName}/${prefix} --endpoint`);
  assert.is(compatibilityDate, COMPATIBILITY_DATE);
  const repositoryToml = fs.readFileSync(path.join(ROOT, 'wrangler.toml'), 'utf8');
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const [repositoryBucket, repositoryPrefix] = [/^bucket_name = "([^"]+)"$/m, /^TREE_PREFIX = "([^"]*)"$/m].map(
    (pattern) => pattern.exec(repositoryToml)![1]!,
  );
  assert.match(readme, `--to s3://${repositoryBucket}/${repositoryPrefix} `);
  // And this repository's own configuration bundles (`npm run worker:dry-run`), with that prefix.
  const ownDryRun = run('npm', ['run', 'worker:dry-run'], {
    cwd: ROOT,
    env: { HOME: process.env.HOME ?? home, WRANGLER_SEND_METRICS: 'false' },
  });
  assert.is(ownDryRun.status, 0, `${ownDryRun.stdout}${ownDryRun.stderr}`);
  assert.match(ownDryRun.stdout, `env.TREE_PREFIX ("${repositoryPrefix}")`);
  const s3 = await startS3Server(tempDir('ws-package-s3-'), bucketName);
  try {
    const published = npx(
      ['publish', '--dir', sampleTree, '--to', `s3://${bucketName}/${prefix}`, '--endpoint', s3.endpoint],
      S3_CREDENTIALS,
    );
    assert.is(published.status, 0, published.stderr);
    assert.match(published.stdout, `to s3://${bucketName}/${prefix} in `);

    fs.writeFileSync(path.join(user, 'worker.js'), workerSource);
    fs.writeFileSync(path.join(user, 'wrangler.toml'), wranglerToml);
    const bundleDir = path.join(work, 'wrangler-out');
    // This repository's pinned wrangler (a devDependency), on the user's repository.
    const wrangler = path.join(ROOT, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
    const bundled = run(process.execPath, [wrangler, 'deploy', '--dry-run', '--outdir', bundleDir], {
      cwd: user,
      env: { WRANGLER_SEND_METRICS: 'false' },
    });
    assert.is(bundled.status, 0, `${bundled.stdout}${bundled.stderr}`);
    assert.match(bundled.stdout, `env.TREE (${bucketName})`);
    assert.match(bundled.stdout, `env.TREE_PREFIX ("${prefix}")`);

    // The bundle wrangler made, in workerd over an R2 bucket holding what publish stored.
    Object.assign(process.env, S3_CREDENTIALS);
    const client = await createStorageClient({ endpoint: s3.endpoint, maxAttempts: 2, concurrency: 8 });
    const location = parseLocation(`s3://${bucketName}/${prefix}`);
    const pointer = (await readPointer(client, location))!;
    const start = (treePrefix: string) =>
      new Miniflare({
        modules: true,
        scriptPath: path.join(bundleDir, 'worker.js'),
        modulesRoot: bundleDir,
        compatibilityDate,
        r2Buckets: ['TREE'],
        bindings: { TREE_PREFIX: treePrefix },
      });
    for (const treePrefix of [prefix, '']) {
      const miniflare = start(treePrefix);
      try {
        // Each call made again if workerd dropped its loopback connection (preview/local-bucket.ts).
        const bucket = sturdyBucket((await miniflare.getR2Bucket('TREE')) as unknown as LocalBucket);
        // The pointer where publish wrote it; the version's objects only where the Worker will find them.
        await bucket.put(`${prefix}/${POINTER_KEY}`, JSON.stringify(pointer), {
          httpMetadata: { contentType: JSON_CONTENT_TYPE, cacheControl: POINTER_CACHE_CONTROL },
        });
        if (treePrefix === prefix) {
          // A packed version: its archives and indexes, read by range (publish/read-version.ts).
          for await (const object of (await readLiveVersion(client, location)).objects)
            await bucket.put(object.key, object.body, { httpMetadata: {} });
        }
        const answer = await miniflare.dispatchFetch('http://localhost/v1/seasons');
        if (treePrefix === prefix) {
          assert.is(answer.status, 200);
          assert.is(await answer.text(), fs.readFileSync(path.join(sampleTree, SEASONS_FILE), 'utf8'));
        } else {
          // A Worker deployed with another prefix finds no pointer: what the documented prefix prevents.
          assert.is(answer.status, 503);
          assert.match(await answer.text(), 'nothing is published yet');
        }
      } finally {
        await miniflare.dispose();
      }
    }
    client.destroy();
  } finally {
    await s3.close();
  }
});

test("the README's path for a programme: npm install --save-dev wallet-snapshot, npx wallet-snapshot init --bucket --prefix, the tested wrangler; the Worker it writes bundles with wrangler", () => {
  const repository = path.join(work, 'data-repository');
  fs.mkdirSync(repository);
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const at = readme.indexOf('### The data repository');
  assert.ok(at >= 0, 'the README has "### The data repository"');
  const commands = /```\n([\s\S]*?)```/.exec(readme.slice(at))![1]!.trim().split('\n');
  const { devDependencies } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  assert.equal(commands, [
    'npm install --save-dev wallet-snapshot',
    'npx wallet-snapshot init --bucket points-snapshots --prefix prod',
    `npm install --save-dev --save-exact wrangler@${devDependencies.wrangler}`,
  ]);
  fs.writeFileSync(path.join(repository, 'package.json'), `${JSON.stringify({ name: 'points-data', private: true })}\n`);
  // The registry's package is this repository's tarball here.
  const installed = run('npm', ['install', '--save-dev', '--prefer-offline', tarball], { cwd: repository });
  assert.is(installed.status, 0, installed.stderr);
  const manifest = JSON.parse(fs.readFileSync(path.join(repository, 'package.json'), 'utf8')) as {
    devDependencies?: Record<string, string>;
  };
  assert.match(manifest.devDependencies?.['wallet-snapshot'] ?? '', /^file:/, JSON.stringify(manifest));
  const init = run('npx', commands[1]!.split(' ').slice(1), { cwd: repository });
  assert.is(init.status, 0, init.stderr);
  assert.match(
    init.stdout,
    `wrote ${repository}:\n  .github/workflows/nightly.yml\n  worker.js\n  wrangler.toml\n  .gitignore (init's block in a new file)\n  README.md (the "Nightly snapshot" section in a new file)\n`,
  );
  assert.not.match(init.stdout, 'npm install --save-dev wallet-snapshot in');
  assert.match(init.stdout, `  - the Worker: ${commands[2]}, then deploy it with npx wrangler deploy\n`);
  for (const file of ['.github/workflows/nightly.yml', 'worker.js', 'wrangler.toml', '.gitignore', 'README.md'])
    assert.ok(fs.existsSync(path.join(repository, file)), file);
  assert.match(fs.readFileSync(path.join(repository, 'wrangler.toml'), 'utf8'), /^name = "points-data-snapshot"$/m);
  const again = run('npx', ['wallet-snapshot', 'init'], { cwd: repository });
  assert.is(again.status, 1);
  assert.match(again.stderr, 'wrangler.toml already; nothing was written (give --force to overwrite them)');
  const wrangler = path.join(ROOT, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
  const bundled = run(process.execPath, [wrangler, 'deploy', '--dry-run', '--outdir', path.join(work, 'init-wrangler-out')], {
    cwd: repository,
    env: { WRANGLER_SEND_METRICS: 'false' },
  });
  assert.is(bundled.status, 0, `${bundled.stdout}${bundled.stderr}`);
  assert.match(bundled.stdout, 'env.TREE (points-snapshots)');
  assert.match(bundled.stdout, 'env.TREE_PREFIX ("prod")');
  // Without --bucket and --prefix: the placeholders, which wrangler takes too (the workflow refuses them).
  assert.is(run('npx', ['wallet-snapshot', 'init', '--force'], { cwd: repository }).status, 0);
  const dryRun = run(process.execPath, [wrangler, 'deploy', '--dry-run', '--outdir', path.join(work, 'init-wrangler-placeholders')], {
    cwd: repository,
    env: { WRANGLER_SEND_METRICS: 'false' },
  });
  assert.is(dryRun.status, 0, `${dryRun.stdout}${dryRun.stderr}`);
  assert.match(dryRun.stdout, 'env.TREE (replace-with-your-bucket)');
});

test('the package exports the --summary-json schemas (wallet-snapshot/summaries)', () => {
  const script =
    "import { PublishSummaryJsonSchema } from 'wallet-snapshot/summaries'; console.log(Object.keys(PublishSummaryJsonSchema.shape).length);";
  const imported = run(process.execPath, ['--input-type=module', '-e', script], { cwd: user });
  assert.is(imported.status, 0, imported.stderr);
  assert.is(imported.stdout, '14\n');
});

test.run();
