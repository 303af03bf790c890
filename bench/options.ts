/** `npm run bench` options: parsed and checked before any work, with the usage on `--help`. */
import { parseArgs } from 'node:util';

export const USAGE = `usage: npm run bench -- [--wallets N] [--seed S] [--server-seconds S] [--keep]
       npm run bench -- --wallets N --shard K/N [--packed] [--floors] [--profile DIR] [--seed S] [--keep]
       npm run bench -- --wallets N --stage-all --shards N [--seed S] [--keep]
       npm run bench -- --wallets N --incremental --shards N [--days D] [--prepare-threads T] [--seed S] [--keep]
       (each also takes [--data DIR] [--trees DIR] [--store DIR] [--generate-memory SIZE] [--build-memory SIZE];
        --help prints this)

  without --shard     generate (or reuse) the dataset, build it whole, load-test the Node server and
                      the Worker on daily requests, and measure the filesystem floor of the same files
  --shard K/N         the night of one shard of N: build --shard K/N, verify, stage it with publish to
                      a local S3 server (s3rver, storing on tmpfs), then publish --commit, which must
                      refuse the version while the other N-1 shards are missing (exit 1)
  --packed            with --shard or --stage-all: each shard's build writes its pack (build --packed)
  --floors            with --shard: after the shard's job, the same shard built as a tree of files, and
                      on its files the floors: Node writing them, read and gzipped at level 2 on two
                      threads (the pack floor), read and hashed with sha256
  --profile DIR       with --shard: each step of the shard's job run under node --cpu-prof (profiles in
                      DIR/<step>), and where its seconds went printed by kind of work (bench/profile-summary.ts);
                      profiling costs time: take the figures from a run without it
  --stage-all         the whole sharded night at a smaller size: build, verify and stage every shard
  --shards N          1..N one after the other (each measured, each tree removed once staged), then commit

  --incremental       an incremental night: the previous night's export (cut from the dataset) prepared
                      whole, then tonight prepared whole and --since it, and the floor (a scan that
                      hashes every row), each measured; --shards N (default 10), --days D of history;
                      --prepare-threads T: every prepare's --threads (DuckDB's threads, default 2), and
                      the floor's scan on as many
  --wallets N         dataset size (default 10000: ~1M balance rows, a few minutes on 2 cores;
                      the performance bars' scale is --wallets 100000: ~10M balance rows, ~30M points rows)
  --seed S            dataset seed (default 1); the same seed gives the same bytes
  --server-seconds S  seconds of each load test (default 10)
  --keep              keep the built trees (and the S3 store) afterwards
  --data DIR          where datasets are generated and kept between runs (default bench-data)
  --trees DIR         where trees are built (default: beside the dataset)
  --store DIR         where the S3 server stores objects (default a new folder in /dev/shm)
  --generate-memory SIZE  DuckDB's memory limit while generating (default 2GB; it spills beyond it)
  --build-memory SIZE     the builds' --memory-limit (default: the build's own, 1GB)
`;

export interface BenchOptions {
  wallets: number;
  seed: number;
  serverSeconds: number;
  keep: boolean;
  /** Null: the unsharded bench (build and servers). */
  night:
    | null
    | { kind: 'one-shard'; shard: number; shards: number }
    | { kind: 'stage-all'; shards: number }
    | { kind: 'incremental'; shards: number; prepareThreads: number | null };
  /** Days of history in the dataset (default 365). */
  days: number;
  data: string | null;
  trees: string | null;
  store: string | null;
  generateMemory: string;
  /** The builds' --memory-limit; null: the build's default. */
  buildMemory: string | null;
  /** Shard builds write their pack (build --packed). */
  packed: boolean;
  /** After a shard's job, the floors of its documents (pack-floor.ts). */
  floors: boolean;
  /** Each step of a shard's job profiled into this folder (profile-summary.ts); null: none. */
  profile: string | null;
}

export class UsageError extends Error {}

/** The options, or null for --help; a UsageError for anything wrong. */
export function parseBenchOptions(args: string[]): BenchOptions | null {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        help: { type: 'boolean', short: 'h' },
        wallets: { type: 'string' },
        seed: { type: 'string' },
        'server-seconds': { type: 'string' },
        keep: { type: 'boolean' },
        shard: { type: 'string' },
        'stage-all': { type: 'boolean' },
        incremental: { type: 'boolean' },
        days: { type: 'string' },
        'prepare-threads': { type: 'string' },
        shards: { type: 'string' },
        data: { type: 'string' },
        trees: { type: 'string' },
        store: { type: 'string' },
        'generate-memory': { type: 'string' },
        'build-memory': { type: 'string' },
        packed: { type: 'boolean' },
        floors: { type: 'boolean' },
        profile: { type: 'string' },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return null;
  const whole = (
    name: 'wallets' | 'seed' | 'server-seconds' | 'shards' | 'days' | 'prepare-threads',
    fallback: number,
    least: number,
  ): number => {
    const text = values[name];
    if (text === undefined) return fallback;
    if (!/^\d+$/.test(text) || Number(text) < least) throw new UsageError(`--${name} "${text}" is not a whole number of at least ${least}`);
    return Number(text);
  };
  const options: BenchOptions = {
    // A run without --wallets should finish while its user waits; the scale of the bars is asked for by name.
    wallets: whole('wallets', 10_000, 1),
    seed: whole('seed', 1, 0),
    serverSeconds: whole('server-seconds', 10, 1),
    keep: values.keep === true,
    night: null,
    days: whole('days', 365, 40),
    data: values.data ?? null,
    trees: values.trees ?? null,
    store: values.store ?? null,
    generateMemory: values['generate-memory'] ?? '2GB',
    buildMemory: values['build-memory'] ?? null,
    packed: values.packed === true,
    floors: values.floors === true,
    profile: values.profile ?? null,
  };
  for (const [name, size] of [
    ['--generate-memory', options.generateMemory],
    ['--build-memory', options.buildMemory],
  ] as const) {
    if (size !== null && !/^\d+(\.\d+)?\s*[KMGT]i?B$/i.test(size)) throw new UsageError(`${name} "${size}" is not a size like 2GB`);
  }
  if ([values.shard !== undefined, values['stage-all'], values.incremental].filter(Boolean).length > 1)
    throw new UsageError('--shard, --stage-all and --incremental exclude each other');
  if (values.shard !== undefined) {
    const match = /^(\d+)\/(\d+)$/.exec(values.shard);
    if (!match || Number(match[2]) < 1 || Number(match[1]) < 1 || Number(match[1]) > Number(match[2])) {
      throw new UsageError(`--shard "${values.shard}" is not K/N with 1 <= K <= N (e.g. 1/8)`);
    }
    options.night = { kind: 'one-shard', shard: Number(match[1]), shards: Number(match[2]) };
  } else if (values['stage-all']) {
    if (values.shards === undefined) throw new UsageError('--stage-all needs --shards N');
    options.night = { kind: 'stage-all', shards: whole('shards', 0, 1) };
  } else if (values.incremental) {
    options.night = {
      kind: 'incremental',
      shards: whole('shards', 10, 1),
      prepareThreads: values['prepare-threads'] === undefined ? null : whole('prepare-threads', 2, 1),
    };
  } else if (values.shards !== undefined) {
    throw new UsageError('--shards goes with --stage-all or --incremental (for one shard: --shard K/N)');
  }
  if (options.packed && options.night?.kind !== 'one-shard' && options.night?.kind !== 'stage-all')
    throw new UsageError('--packed goes with --shard K/N or --stage-all');
  if (options.floors && options.night?.kind !== 'one-shard') throw new UsageError('--floors goes with --shard K/N');
  if (options.profile !== null && options.night?.kind !== 'one-shard') throw new UsageError('--profile goes with --shard K/N');
  if (values['prepare-threads'] !== undefined && options.night?.kind !== 'incremental')
    throw new UsageError('--prepare-threads goes with --incremental');
  return options;
}
