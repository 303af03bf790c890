/**
 * `npm run bench -- --incremental --shards N`: what an incremental night saves
 * (docs/incremental-nights.md). From the dataset, the previous night's export is cut (every row
 * dated up to the day before the last closed day) and prepared whole; then, in one run, tonight is
 * prepared whole and `--since` the previous night (in a copy of its folder, as a workflow that
 * fetched it does), each measured (wall, CPU, peak RSS), with the
 * floor: one DuckDB scan that hashes every row of the seven files, the least a night can do to
 * know what changed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { DateTime } from 'luxon';
import { cpuSeconds, runMeasured } from './children.ts';
import { step, type StepFigures } from './night.ts';
import { literalPathSql } from '../build/database.ts';
import { lastClosedDayOf } from '../build/config.ts';
import { dayNumber } from '../build/compute/days.ts';
import { newYorkDayStart } from '../core/new-york-day.ts';
import { describeNightKind, NightKindSchema } from '../schemas/night-kind.ts';

export interface IncrementalPlan {
  cli: string;
  root: string;
  input: string;
  /** Where the nights are prepared. */
  trees: string;
  now: string;
  shards: number;
  buildOptions: string[];
  /** Every prepare's `--threads` and the floor's (null: prepare's default, 2). */
  prepareThreads: number | null;
  keep: boolean;
  log: (text: string) => void;
}

export interface IncrementalFigures {
  shards: number;
  /** DuckDB's threads in every prepare and in the floor's scan. */
  threads: number;
  previous: StepFigures;
  full: StepFigures & { stageSeconds: Record<string, number> };
  incremental: StepFigures & { stageSeconds: Record<string, number>; night: string };
  floor: StepFigures & { rows: number };
  /** The incremental prepare's CPU-seconds over the full one's (bar 0.3), and its wall over the floor's (bar 4). */
  cpuRatio: number | null;
  floorRatio: number;
}

export async function runIncremental(plan: IncrementalPlan): Promise<IncrementalFigures> {
  const previousInput = path.join(path.dirname(plan.input), 'input-previous-night');
  const previousNow = DateTime.fromISO(plan.now, { zone: 'utc' }).minus({ days: 1 }).toISO({ suppressMilliseconds: true })!;
  const previousLast = lastClosedDayOf(DateTime.fromISO(previousNow, { zone: 'utc' }));
  if (!fs.existsSync(path.join(previousInput, 'seasons.parquet'))) {
    plan.log(`cutting the previous night's export (rows up to ${previousLast})...`);
    await cutExport(plan.input, previousInput, previousLast);
  }
  const nights = {
    previous: path.join(plan.trees, 'night-previous'),
    full: path.join(plan.trees, 'night-full'),
    incremental: path.join(plan.trees, 'night-incremental'),
  };
  for (const folder of Object.values(nights)) fs.rmSync(folder, { recursive: true, force: true });
  const prepare = async (name: string, input: string, out: string, now: string, extra: string[]) => {
    const summaryFile = path.join(plan.trees, `summary-${name}.json`);
    plan.log(`prepare (${name})...`);
    const measured = await runMeasured(
      `prepare ${name}`,
      [],
      [
        plan.cli,
        'prepare',
        '--input',
        input,
        '--out',
        out,
        '--shards',
        String(plan.shards),
        '--now',
        now,
        '--progress',
        'lines',
        '--summary-json',
        summaryFile,
        ...plan.buildOptions,
        ...(plan.prepareThreads === null ? [] : ['--threads', String(plan.prepareThreads)]),
        ...extra,
      ],
    );
    if (measured.code !== 0)
      throw new Error(`prepare (${name}) failed with exit code ${measured.code ?? measured.signal}:\n${measured.stderr.slice(-2000)}`);
    plan.log(`prepare (${name}): ${measured.wallSeconds.toFixed(1)} s, ${cpuSeconds(measured.usage)?.toFixed(1)} CPU-s`);
    return { measured, summary: JSON.parse(fs.readFileSync(summaryFile, 'utf8')) };
  };
  fs.mkdirSync(plan.trees, { recursive: true });
  const previous = await prepare('previous night, whole', previousInput, nights.previous, previousNow, []);
  const full = await prepare('tonight, whole', plan.input, nights.full, plan.now, []);
  // At 1,000,000 wallets a night folder is about 11 GB: three at once do not fit every disk.
  if (!plan.keep) fs.rmSync(nights.full, { recursive: true, force: true });
  // As a nightly workflow does: the previous night fetched into the night folder (not timed), then
  // prepared in place.
  fs.cpSync(nights.previous, nights.incremental, { recursive: true });
  const incremental = await prepare('tonight, --since the previous night', plan.input, nights.incremental, plan.now, [
    '--since',
    nights.incremental,
  ]);
  plan.log('the floor: one scan that hashes every row...');
  const threads = plan.prepareThreads ?? 2;
  const floor = await runMeasured(
    'scan floor',
    ['--import', 'tsx'],
    [path.join(plan.root, 'bench/scan-floor.ts'), plan.input, String(threads)],
  );
  if (floor.code !== 0) throw new Error(`the scan floor failed: ${floor.stderr.slice(-2000)}`);
  if (!plan.keep) for (const folder of Object.values(nights)) fs.rmSync(folder, { recursive: true, force: true });
  const fullCpu = cpuSeconds(full.measured.usage);
  const incrementalCpu = cpuSeconds(incremental.measured.usage);
  return {
    shards: plan.shards,
    threads,
    previous: step(previous.measured),
    full: { ...step(full.measured), stageSeconds: rounded(full.summary.stageSeconds) },
    incremental: {
      ...step(incremental.measured),
      stageSeconds: rounded(incremental.summary.stageSeconds),
      night: describeNightKind(NightKindSchema.parse(incremental.summary.night)),
    },
    floor: { ...step(floor), rows: Number(/rows (\d+)/.exec(floor.stdout)?.[1] ?? 0) },
    cpuRatio: fullCpu && incrementalCpu ? round(incrementalCpu / fullCpu, 3) : null,
    floorRatio: round(incremental.measured.wallSeconds / floor.wallSeconds, 2),
  };
}

export function formatIncremental(figures: IncrementalFigures): string {
  const usage = (step: StepFigures) => `${step.wallSeconds} s wall, ${step.cpuSeconds} CPU-s, peak RSS ${step.peakRssMB} MB`;
  const stages = (seconds: Record<string, number>) =>
    Object.entries(seconds)
      .map(([stage, value]) => `${stage} ${value}s`)
      .join(', ');
  return [
    `shards                  ${figures.shards}`,
    `DuckDB threads          ${figures.threads} (every prepare, and the floor's scan)`,
    `previous night (whole)  ${usage(figures.previous)}`,
    `tonight, whole          ${usage(figures.full)}`,
    `    stages              ${stages(figures.full.stageSeconds)}`,
    `tonight, incremental    ${usage(figures.incremental)}`,
    `    stages              ${stages(figures.incremental.stageSeconds)}`,
    `    night               ${figures.incremental.night}`,
    `scan floor              ${usage(figures.floor)}, ${figures.floor.rows} rows hashed`,
    `incremental / whole     ${figures.cpuRatio} of the CPU-seconds (bar 0.3)`,
    `incremental / floor     ${figures.floorRatio} times the scan's wall (bar 4)`,
    '',
  ].join('\n');
}

/** The export of the night before: every file's rows dated up to `last` (balances: New York days), the others as they are. */
async function cutExport(input: string, out: string, last: string): Promise<void> {
  fs.mkdirSync(out, { recursive: true });
  const endOfLast = newYorkDayStart(dayNumber(last) + 1);
  const instance = await DuckDBInstance.create(':memory:', { threads: '2', memory_limit: '2GB' });
  const db = await instance.connect();
  try {
    const where: Record<string, string> = {
      balances: `timestamp < ${endOfLast}`,
      prices: `date <= DATE '${last}'`,
      points: `date <= DATE '${last}'`,
    };
    for (const name of fs.readdirSync(input).filter((file) => file.endsWith('.parquet'))) {
      const table = name.replace('.parquet', '');
      const source = literalPathSql(path.join(input, name));
      await db.run(
        `COPY (SELECT * FROM read_parquet(${source}) WHERE ${where[table] ?? 'true'}) TO ${literalPathSql(path.join(out, name))} (FORMAT parquet, COMPRESSION zstd)`,
      );
    }
  } finally {
    db.disconnectSync();
    instance.closeSync();
  }
}

const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;
const rounded = (seconds: Record<string, number>) =>
  Object.fromEntries(Object.entries(seconds).map(([name, value]) => [name, round(value)]));
