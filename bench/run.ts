/**
 * `npm run bench -- [--wallets N] [--seed S] [--server-seconds S] [--keep]`, or the sharded night:
 * `--shard K/N` (one shard and the commit's refusal) or `--stage-all --shards N` (every shard, then
 * the commit). `npm run bench -- --help` for every option (bench/options.ts).
 *
 * Generates a seeded dataset of N wallets (default 10,000; at 100,000: ~10M balance rows, ~30M points rows;
 * 365 days, 3 chains, all 7 tokens, 10% of wallets with venue-B sub-accounts), streamed by DuckDB
 * at any size. Unsharded, it runs the real `wallet-snapshot build` on it as a child process,
 * load-tests the preview server on daily requests, measures the filesystem floor of the same files
 * in the same run, and prints a table and one final JSON line with every figure (for a CI
 * history). Sharded, it measures each step of the night (bench/night.ts) and prints them the same
 * way. `--keep` keeps the trees. Every child stops with the bench on SIGTERM or SIGINT.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { listTree, measureFloor, measureSyncFloor } from './floor.ts';
import { cpuSeconds, runMeasured, startChild, stopChildrenOnSignals } from './children.ts';
import { parseBenchOptions, USAGE, UsageError, type BenchOptions } from './options.ts';
import { formatNight, runNight } from './night.ts';
import { formatIncremental, runIncremental } from './incremental.ts';
import { DateTime } from 'luxon';
import { stopWhenOrphaned } from '../core/signals.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = path.join(ROOT, 'bin/wallet-snapshot.js');
const NOW = '2025-11-21T17:00:00Z';
const AS_OF = '2025-11-20';

function readOptions(): BenchOptions {
  try {
    const options = parseBenchOptions(process.argv.slice(2));
    if (options === null) {
      process.stdout.write(USAGE);
      process.exit(0);
    }
    return options;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`bench: ${error.message}\n${USAGE}`);
    process.exit(2);
  }
}

const options = readOptions();
const { wallets, seed, serverSeconds, keep } = options;
const datasetName = `w${wallets}-seed${seed}${options.days === 365 ? '' : `-d${options.days}`}`;
const work = path.join(options.data ?? path.join(ROOT, 'bench-data'), datasetName);
const input = path.join(work, 'input');
const trees = options.trees ? path.join(options.trees, datasetName) : work;
const out = path.join(trees, 'public');
const log = (text: string) => process.stderr.write(`[bench] ${text}\n`);

// Every child (the generator, builds, servers) stops with the bench; a store made here goes too.
let ownStore: string | null = null;
stopChildrenOnSignals(() => {
  if (ownStore) fs.rmSync(ownStore, { recursive: true, force: true });
});
// `npm run bench`: npm's shell dies of a SIGTERM without passing it on; the bench notices and stops.
stopWhenOrphaned();

// 1. The dataset (kept between runs: the same seed gives the same bytes; the files an interrupted
// generation wrote whole are kept too). Generated in a child
// process, measured like the steps: at 1,000,000 wallets it is ~100M balance rows and ~300M points
// rows, streamed through DuckDB's sort with a bounded memory limit.
let generateSeconds: number | null = null;
let generate: { wallSeconds: number; cpuSeconds: number | null; peakRssMB: number | null; bytes: number } | null = null;
if (!fs.existsSync(path.join(input, 'seasons.parquet'))) {
  log(`generating ${wallets} wallets (seed ${seed}) into ${input}...`);
  const startDate = DateTime.fromISO(AS_OF, { zone: 'utc' })
    .minus({ days: options.days - 1 })
    .toISODate();
  const dataset = {
    outDir: input,
    wallets,
    seed,
    startDate,
    days: options.days,
    seasonOneEnd: '2025-05-31',
    rowsPerWallet: 100,
    memoryLimit: options.generateMemory,
    keepExisting: true,
  };
  const generated = await runMeasured(
    'generate',
    ['--import', 'tsx'],
    [path.join(ROOT, 'bench/generate-dataset.ts'), JSON.stringify(dataset)],
  );
  if (generated.code !== 0) throw new Error(`the generator failed with exit code ${generated.code ?? generated.signal}`);
  generateSeconds = generated.wallSeconds;
  generate = {
    wallSeconds: round(generated.wallSeconds)!,
    cpuSeconds: round(cpuSeconds(generated.usage)),
    peakRssMB: generated.usage ? Math.round(generated.usage.peakRssBytes / 2 ** 20) : null,
    bytes: listTree(input).reduce((sum, file) => sum + file.size, 0),
  };
  log(
    `generated in ${generate.wallSeconds} s, ${generate.cpuSeconds} CPU-s, peak RSS ${generate.peakRssMB} MB, ${(generate.bytes / 2 ** 30).toFixed(2)} GiB of Parquet`,
  );
}

if (options.night?.kind === 'incremental') {
  const figures = await runIncremental({
    cli: CLI,
    root: ROOT,
    input,
    trees,
    now: NOW,
    shards: options.night.shards,
    buildOptions: buildOptions(),
    prepareThreads: options.night.prepareThreads,
    keep,
    log,
  });
  process.stdout.write(`\nwallets                 ${wallets}, ${options.days} days of history\n${formatIncremental(figures)}`);
  process.stdout.write(`${JSON.stringify({ wallets, seed, days: options.days, generate, incremental: figures })}\n`);
  process.exit(0);
}
if (options.night) {
  await sharded(options.night);
  process.exit(0);
}

// Trees an earlier run left (--keep, or an interrupted run). Removing them here slows the files
// created in the next minutes on ext4 without a journal (see the floor below), hence the warning.
const floorTargets = [path.join(trees, 'floor-sync'), path.join(trees, 'floor-async')];
// (`floor` is where earlier versions of this bench wrote both floors.)
// `out` is a link to a build folder in `.public.builds`, which holds the trees themselves.
const builtTrees = [out, path.join(trees, '.public.builds')];
const leftovers = [...builtTrees, ...floorTargets, path.join(trees, 'floor')].filter((dir) => fs.existsSync(dir));
if (leftovers.length > 0) {
  for (const dir of leftovers) fs.rmSync(dir, { recursive: true, force: true });
  log(`removed ${leftovers.length} tree(s) of an earlier run; on ext4 without a journal, figures taken in the next 5 minutes may be slow`);
}

// 2. The real build, as a user runs it.
log('building...');
fs.mkdirSync(trees, { recursive: true });
const summaryFile = path.join(trees, 'summary.json');
const built = await runMeasured(
  'build',
  [],
  [CLI, 'build', '--input', input, '--out', out, '--now', NOW, '--progress', 'lines', '--summary-json', summaryFile, ...buildOptions()],
);
const buildSeconds = built.wallSeconds;
if (built.code !== 0) throw new Error(`the build failed with exit code ${built.code ?? built.signal}`);
const summary = JSON.parse(fs.readFileSync(summaryFile, 'utf8'));

// Every measurement below starts with nothing left to write back, as the build did: otherwise
// each would share the disk with the write-back of the gigabytes the step before it wrote.
const flush = () => {
  log('flushing written files to disk...');
  spawnSync('sync');
};

// 3. Both hosts of the request handler under load: daily documents with and without from/to, 64
// connections. The Worker's local R2 bucket (Miniflare's simulator) takes a few hundred objects a
// second, so it is loaded with the files these requests read: the shared files and the wallets
// asked for, hard-linked into a tree of their own.
flush();
const addresses = fs.readdirSync(path.join(out, 'v1/address')).slice(0, 2000);
const loadTests: Record<'node' | 'workerd', { unfiltered: LoadFigures; filtered: LoadFigures }> = {} as never;
for (const runtime of ['node', 'workerd'] as const) {
  log(`load-testing the ${runtime === 'node' ? 'Node server' : 'Worker in workerd'}...`);
  const dir = runtime === 'node' ? out : linkSampleTree(out, path.join(trees, 'worker-tree'), addresses);
  const server = startChild(
    `serve --runtime ${runtime}`,
    process.execPath,
    [CLI, 'serve', '--dir', dir, '--port', '0', '--runtime', runtime],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const base = await new Promise<string>((resolve, reject) => {
    server.stdout!.on('data', (data: Buffer) => {
      const match = /at (http:\/\/\S+)/.exec(String(data));
      if (match) resolve(match[1]!);
    });
    server.on('exit', () => reject(new Error(`the ${runtime} server stopped`)));
  });
  const unfiltered = await load(base, (i) => `/v1/address/${addresses[i % addresses.length]}/portfolio/daily`);
  const filtered = await load(base, (i) => `/v1/address/${addresses[i % addresses.length]}/portfolio/daily?from=2025-10-21&to=${AS_OF}`);
  loadTests[runtime] = { unfiltered, filtered };
  server.kill('SIGTERM');
  await new Promise((resolve) => server.once('exit', resolve));
}

// 4. The filesystem floor: the same files, the same sizes, written from Node with nothing computed,
// once one after another with synchronous calls and once with 64 asynchronous writes in flight.
// Each into its own folder, and nothing is deleted until every figure is taken: on ext4 without a
// journal (this VM's disk), creating files within minutes of deleting many is several times slower
// (the kernel skips recently freed inodes one by one), so a deletion would slow what follows it.
const files = listTree(out);
flush();
log('measuring the filesystem floor (sync)...');
const syncFloor = measureSyncFloor(files, floorTargets[0]!);
flush();
log('measuring the filesystem floor (async x64)...');
const asyncFloor = await measureFloor(files, floorTargets[1]!, 64);
const floorSeconds = Math.min(syncFloor.seconds, asyncFloor.seconds);

const figures = {
  wallets,
  seed,
  generateSeconds: round(generateSeconds),
  build: {
    wallSeconds: round(buildSeconds),
    peakRssMB: Math.round(summary.peakRssBytes / 2 ** 20),
    balanceRows: summary.balanceRows,
    balanceRowsPerSecond: Math.round(summary.balanceRows / buildSeconds),
    files: summary.files,
    filesPerSecond: Math.round(summary.files / buildSeconds),
    bytes: summary.bytes,
    stageSeconds: Object.fromEntries(
      Object.entries(summary.stageSeconds as Record<string, number>).map(([stage, seconds]) => [stage, round(seconds)]),
    ),
  },
  floor: { syncSeconds: round(syncFloor.seconds), asyncSeconds: round(asyncFloor.seconds), seconds: round(floorSeconds) },
  buildOverFloor: round(buildSeconds / floorSeconds),
  server: { connections: 64, ...loadTests.node },
  worker: { connections: 64, ...loadTests.workerd },
};

process.stdout.write(`
wallets                 ${wallets}
build                   ${figures.build.wallSeconds} s, peak RSS ${figures.build.peakRssMB} MB
  stages                ${Object.entries(figures.build.stageSeconds)
    .map(([stage, seconds]) => `${stage} ${seconds}s`)
    .join(', ')}
  throughput            ${figures.build.balanceRowsPerSecond} balance rows/s, ${figures.build.filesPerSecond} files/s, ${(summary.bytes / 2 ** 30).toFixed(2)} GiB
filesystem floor        ${figures.floor.seconds} s (sync ${figures.floor.syncSeconds} s, async x64 ${figures.floor.asyncSeconds} s)
build / floor           ${figures.buildOverFloor}
Node server, daily      ${figures.server.unfiltered.requestsPerSecond} req/s, p50 ${figures.server.unfiltered.p50} ms, p99 ${figures.server.unfiltered.p99} ms
  daily from/to         ${figures.server.filtered.requestsPerSecond} req/s, p50 ${figures.server.filtered.p50} ms, p99 ${figures.server.filtered.p99} ms
Worker (workerd), daily ${figures.worker.unfiltered.requestsPerSecond} req/s, p50 ${figures.worker.unfiltered.p50} ms, p99 ${figures.worker.unfiltered.p99} ms
  daily from/to         ${figures.worker.filtered.requestsPerSecond} req/s, p50 ${figures.worker.filtered.p50} ms, p99 ${figures.worker.filtered.p99} ms
`);
process.stdout.write(`${JSON.stringify(figures)}\n`);

// Cleaned up only now, every figure printed (deleting three 8 GB trees takes minutes on this disk).
// With --keep nothing is deleted, so that runs of other sizes can follow at once; the next run of
// this size removes the trees first.
if (!keep) {
  log('removing the floor trees and the built tree...');
  for (const target of [...floorTargets, ...builtTrees, path.join(trees, 'worker-tree')])
    fs.rmSync(target, { recursive: true, force: true });
}
process.exit(0);

function buildOptions(): string[] {
  return options.buildMemory === null ? [] : ['--memory-limit', options.buildMemory];
}

function round(value: number | null): number | null {
  return value === null ? null : Math.round(value * 100) / 100;
}

interface LoadFigures {
  requestsPerSecond: number;
  p50: number;
  p99: number;
}

/** The shared files of a tree and the folders of `wallets`, hard-linked into `target`. */
function linkSampleTree(tree: string, target: string, wallets: string[]): string {
  fs.rmSync(target, { recursive: true, force: true });
  const source = fs.realpathSync(tree);
  const kept = new Set(wallets);
  for (const { file: relative } of listTree(source)) {
    const parts = relative.split(path.sep);
    if (parts[0] === 'v1' && parts[1] === 'address' && !kept.has(parts[2]!)) continue;
    fs.mkdirSync(path.dirname(path.join(target, relative)), { recursive: true });
    fs.linkSync(path.join(source, relative), path.join(target, relative));
  }
  return target;
}

/** A warm-up pass (the server's file cache fills as a running server's would), then the measure. */
async function load(base: string, pathOf: (i: number) => string): Promise<LoadFigures> {
  let i = 0;
  const options = { url: base, connections: 64, requests: [{ setupRequest: (request: object) => ({ ...request, path: pathOf(i++) }) }] };
  await autocannon({ ...options, duration: 2 });
  const result = await autocannon({ ...options, duration: serverSeconds });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`load test: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return { requestsPerSecond: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99 };
}

/** The sharded night: one shard and the commit's refusal, or every shard and the commit. */
async function sharded(night: { kind: 'one-shard'; shard: number; shards: number } | { kind: 'stage-all'; shards: number }): Promise<void> {
  const shards = night.shards;
  const stage = night.kind === 'one-shard' ? [night.shard] : Array.from({ length: shards }, (_, i) => i + 1);
  fs.mkdirSync(trees, { recursive: true });
  const tmpfs = fs.existsSync('/dev/shm') ? '/dev/shm' : path.join(trees);
  const store = options.store ?? fs.mkdtempSync(path.join(tmpfs, 'ws-bench-s3-'));
  if (options.store === null) ownStore = store;
  const figures = await runNight({
    cli: CLI,
    input,
    trees,
    store,
    s3rverScript: path.join(ROOT, 'test/helpers/s3rver-process.mjs'),
    now: NOW,
    stage,
    shards,
    keep,
    log,
    buildOptions: buildOptions(),
    packed: options.packed,
    floors: options.floors,
    profile: options.profile === null ? null : path.resolve(options.profile),
  });
  process.stdout.write(
    `\nwallets                 ${wallets}, ${night.kind === 'one-shard' ? `shard ${night.shard} of ${shards}` : `all ${shards} shards`}\n`,
  );
  if (generate) {
    process.stdout.write(
      `generate                ${generate.wallSeconds} s wall, ${generate.cpuSeconds} CPU-s, peak RSS ${generate.peakRssMB} MB, ${(generate.bytes / 2 ** 30).toFixed(2)} GiB of Parquet\n`,
    );
  }
  process.stdout.write(formatNight(figures));
  process.stdout.write(`${JSON.stringify({ wallets, seed, generate, night: figures })}\n`);
  if (!keep && options.store === null) {
    fs.rmSync(store, { recursive: true, force: true });
    ownStore = null;
  }
}
