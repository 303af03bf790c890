/**
 * `npm run bench -- [--wallets N] [--seed S] [--server-seconds S] [--keep]`
 *
 * Generates a seeded dataset of N wallets (default 100,000: ~10M balance rows, ~30M points rows,
 * 365 days, 3 chains, all 7 tokens, 10% of wallets with venue-B sub-accounts), runs the real
 * `wallet-snapshot build` on it as a child process, load-tests the preview server on daily
 * requests, measures the filesystem floor of the same files in the same run, and prints a table
 * and one final JSON line with every figure (for a CI history). `--keep` keeps the trees.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { generateDataset } from '../data/generate.ts';
import { listTree, measureFloor, measureSyncFloor } from './floor.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = path.join(ROOT, 'bin/wallet-snapshot.js');
const NOW = '2025-11-21T17:00:00Z';
const AS_OF = '2025-11-20';

function readOptions() {
  try {
    const { values } = parseArgs({
      options: { wallets: { type: 'string' }, seed: { type: 'string' }, 'server-seconds': { type: 'string' }, keep: { type: 'boolean' } },
    });
    const whole = (name: 'wallets' | 'seed' | 'server-seconds', fallback: number, least: number): number => {
      const text = values[name];
      if (text === undefined) return fallback;
      if (!/^\d+$/.test(text) || Number(text) < least) throw new Error(`--${name} "${text}" is not a whole number of at least ${least}`);
      return Number(text);
    };
    return { wallets: whole('wallets', 100_000, 1), seed: whole('seed', 1, 0), serverSeconds: whole('server-seconds', 10, 1), keep: values.keep === true };
  } catch (error) {
    process.stderr.write(`bench: ${(error as Error).message}\nusage: npm run bench -- [--wallets N] [--seed S] [--server-seconds S] [--keep]\n`);
    process.exit(2);
  }
}

const { wallets, seed, serverSeconds, keep } = readOptions();
const work = path.join(ROOT, 'bench-data', `w${wallets}-seed${seed}`);
const input = path.join(work, 'input');
const out = path.join(work, 'public');

const log = (text: string) => process.stderr.write(`[bench] ${text}\n`);

// 1. The dataset (kept between runs: the same seed gives the same bytes).
let generateSeconds: number | null = null;
if (!fs.existsSync(path.join(input, 'seasons.parquet'))) {
  log(`generating ${wallets} wallets (seed ${seed})...`);
  const started = performance.now();
  await generateDataset({ outDir: input, wallets, seed, startDate: '2024-11-21', days: 365, seasonOneEnd: '2025-05-31', rowsPerWallet: 100 });
  generateSeconds = (performance.now() - started) / 1000;
}

// Trees an earlier run left (--keep, or an interrupted run). Removing them here slows the files
// created in the next minutes on ext4 without a journal (see the floor below), hence the warning.
const floorTargets = [path.join(work, 'floor-sync'), path.join(work, 'floor-async')];
// (`floor` is where earlier versions of this bench wrote both floors.)
// `out` is a link to a build folder in `.public.builds`, which holds the trees themselves.
const builtTrees = [out, path.join(work, '.public.builds')];
const leftovers = [...builtTrees, ...floorTargets, path.join(work, 'floor')].filter((dir) => fs.existsSync(dir));
if (leftovers.length > 0) {
  for (const dir of leftovers) fs.rmSync(dir, { recursive: true, force: true });
  log(`removed ${leftovers.length} tree(s) of an earlier run; on ext4 without a journal, figures taken in the next 5 minutes may be slow`);
}

// 2. The real build, as a user runs it.
log('building...');
const summaryFile = path.join(work, 'summary.json');
const buildStarted = performance.now();
const code = await run(process.execPath, [CLI, 'build', '--input', input, '--out', out, '--now', NOW, '--progress', 'lines', '--summary-json', summaryFile]);
const buildSeconds = (performance.now() - buildStarted) / 1000;
if (code !== 0) throw new Error(`the build failed with exit code ${code}`);
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
  const dir = runtime === 'node' ? out : linkSampleTree(out, path.join(work, 'worker-tree'), addresses);
  const server = spawn(process.execPath, [CLI, 'serve', '--dir', dir, '--port', '0', '--runtime', runtime], { stdio: ['ignore', 'pipe', 'inherit'] });
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
    stageSeconds: Object.fromEntries(Object.entries(summary.stageSeconds as Record<string, number>).map(([stage, seconds]) => [stage, round(seconds)])),
  },
  floor: { syncSeconds: round(syncFloor.seconds), asyncSeconds: round(asyncFloor.seconds), seconds: round(floorSeconds) },
  buildOverFloor: round(buildSeconds / floorSeconds),
  server: { connections: 64, ...loadTests.node },
  worker: { connections: 64, ...loadTests.workerd },
};

process.stdout.write(`
wallets                 ${wallets}
build                   ${figures.build.wallSeconds} s, peak RSS ${figures.build.peakRssMB} MB
  stages                ${Object.entries(figures.build.stageSeconds).map(([stage, seconds]) => `${stage} ${seconds}s`).join(', ')}
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
  for (const target of [...floorTargets, ...builtTrees, path.join(work, 'worker-tree')]) fs.rmSync(target, { recursive: true, force: true });
}

function round(value: number | null): number | null {
  return value === null ? null : Math.round(value * 100) / 100;
}

function run(command: string, args: string[]): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', reject);
    child.on('close', resolve);
  });
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
