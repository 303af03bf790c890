/**
 * The sharded night (its bars: bench/MEASUREMENTS.md#the-bars, "The night at scale"), as N runners of a CI matrix run it:
 * one job prepares the night (reads and checks the exports once, one folder per shard); each
 * shard's job builds its shard from its folder, verifies it and stages it in object storage; one
 * last step commits.
 * Every step is the real CLI in a child process, measured (wall seconds, its own CPU-seconds and
 * peak RSS); the S3 server (s3rver, storing on tmpfs) is a child process of its own whose CPU is
 * reported apart, since a real store's time is not the runner's.
 */
import fs from 'node:fs';
import path from 'node:path';
import { cpuSeconds, runMeasured, startMeasuredServer, type Measured, type MeasuredServer, type Usage } from './children.ts';
import { listTree, measureSyncFloor } from './floor.ts';
import { measurePass, type PassFigures } from './pack-floor.ts';
import { formatProfileSummary, summariseProfiles, type ProfileSummary } from './profile-summary.ts';

export interface NightPlan {
  cli: string;
  input: string;
  /** Where shard trees are built. */
  trees: string;
  /** The S3 server's storage folder. */
  store: string;
  s3rverScript: string;
  now: string;
  /** The shards to build, verify and stage, in order (1-based), of `shards`. */
  stage: number[];
  shards: number;
  keep: boolean;
  /** Extra options of every build (e.g. --memory-limit). */
  buildOptions: string[];
  /** Each shard's build writes its pack (build --packed). */
  packed: boolean;
  /** After each shard's job, its floors (pack-floor.ts), on the same shard built as a tree of files. */
  floors: boolean;
  /** Each step of a shard's job run under `node --cpu-prof` into a folder of its own here (profile-summary.ts); null: none. */
  profile: string | null;
  log: (text: string) => void;
}

export interface StepFigures {
  wallSeconds: number;
  cpuSeconds: number | null;
  userSeconds: number | null;
  systemSeconds: number | null;
  peakRssMB: number | null;
  exitCode: number | null;
}

export interface ShardFigures {
  shard: number;
  shards: number;
  build: StepFigures & { files: number; bytes: number; stageSeconds: Record<string, number> };
  verify: StepFigures;
  stage: StepFigures & { version: string | null; serverCpuSeconds: number | null; storeBytes: number; storeObjects: number };
  /** build + verify + stage, against the bars (600 s, 2 GiB). */
  night: { wallSeconds: number; cpuSeconds: number | null; peakRssMB: number | null; withinTime: boolean; withinMemory: boolean };
  /** `--floors`: the same shard built as a tree of files, and the floors of its documents. */
  floors: ShardFloors | null;
  /** `--profile`: where each step's seconds went, by kind of work (profile-summary.ts). */
  profiles: Record<'build' | 'verify' | 'stage', ProfileSummary> | null;
}

export interface ShardFloors {
  plainBuild: StepFigures & { files: number; bytes: number };
  /** Node writing the same files, one after another. */
  write: { wallSeconds: number };
  /** Every file read once and gzipped at level 2 on two threads: the pack floor. */
  gzip: PassFigures;
  /** Every file read once and hashed with sha256 on two threads. */
  sha256: PassFigures;
  /** The job's wall over the pack floor's (bar 2). */
  jobOverPackFloor: number;
}

export interface NightFigures {
  prepare: StepFigures & { bytes: number; stageSeconds: Record<string, number>; withinTime: boolean; withinMemory: boolean };
  shards: ShardFigures[];
  commit: StepFigures & { expected: 'committed' | 'refused'; outcome: string; serverCpuSeconds: number | null; withinTime: boolean };
  server: { cpuSeconds: number | null; peakRssMB: number | null };
}

export const BARS = { prepareSeconds: 600, prepareRssBytes: 2 * 2 ** 30, shardSeconds: 600, shardRssBytes: 2 * 2 ** 30, commitSeconds: 60 };
export const BUCKET = 'bench';
const LOCATION = `s3://${BUCKET}/night`;
/** s3rver's built-in key pair. */
const S3_CREDENTIALS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1' };

export async function runNight(plan: NightPlan): Promise<NightFigures> {
  fs.mkdirSync(plan.store, { recursive: true });
  const server = startMeasuredServer('s3rver', ['--openssl-legacy-provider'], [plan.s3rverScript, plan.store, BUCKET]);
  const endpoint = `http://127.0.0.1:${await portOf(server)}`;
  plan.log(`S3 server (s3rver) at ${endpoint}, storing in ${plan.store}`);
  const night = path.join(plan.trees, 'night');
  plan.log(`preparing ${plan.shards} shards...`);
  const prepareSummaryFile = path.join(plan.trees, 'summary-prepare.json');
  const prepare = await runMeasured(
    'prepare',
    [],
    [
      plan.cli,
      'prepare',
      '--input',
      plan.input,
      '--out',
      night,
      '--shards',
      String(plan.shards),
      '--now',
      plan.now,
      '--progress',
      'lines',
      '--summary-json',
      prepareSummaryFile,
      ...plan.buildOptions,
    ],
  );
  plan.log(`prepare ${describe(prepare)}`);
  if (prepare.code !== 0) throw new Error(`prepare failed with exit code ${prepare.code ?? prepare.signal}`);
  const preparedBytes = folderBytes(night);
  const prepareSummary = JSON.parse(fs.readFileSync(prepareSummaryFile, 'utf8'));
  const shards: ShardFigures[] = [];
  let version: string | null = null;
  for (const shard of plan.stage) {
    const figures = await runShard(plan, server, endpoint, shard, night);
    shards.push(figures);
    version ??= figures.stage.version;
  }

  // The commit: with every shard staged it must make the version live; with only some, refuse it.
  const expected = plan.stage.length === plan.shards ? 'committed' : 'refused';
  plan.log(
    `committing (${expected === 'committed' ? `all ${plan.shards} shards staged` : `${plan.shards - plan.stage.length} of ${plan.shards} shards missing: expecting a refusal`})...`,
  );
  const serverBefore = await server.usageNow();
  const commit = await runMeasured(
    'publish --commit',
    [],
    [plan.cli, 'publish', '--commit', ...(version ? [version] : []), '--to', LOCATION, '--endpoint', endpoint, '--progress', 'lines'],
    S3_CREDENTIALS,
  );
  const serverAfter = await server.usageNow();
  plan.log(`commit ${describe(commit)}; S3 server ${cpuDelta(serverBefore, serverAfter)} CPU-s`);
  // A shard of 1 went live with its publish: the commit has nothing left to switch.
  const committed = commit.code === 0 && (plan.shards === 1 || /^committed version /m.test(commit.stdout));
  const outcome =
    commit.code === 0
      ? firstLine(commit.stdout)
      : `exit ${commit.code ?? commit.signal}: ${firstLine(
          commit.stderr
            .split('\n')
            .filter((line) => !line.startsWith('['))
            .join('\n'),
        )}`;
  if (expected === 'committed' && !committed) throw new Error(`the commit failed (${outcome})`);
  if (expected === 'refused' && commit.code !== 1)
    throw new Error(`the commit of a version with missing shards should exit 1, not ${commit.code} (${outcome})`);
  const serverFinal = await server.stop();
  if (!plan.keep) fs.rmSync(night, { recursive: true, force: true });
  return {
    prepare: {
      ...step(prepare),
      bytes: preparedBytes,
      stageSeconds: Object.fromEntries(
        Object.entries(prepareSummary.stageSeconds as Record<string, number>).map(([name, seconds]) => [name, round(seconds)]),
      ),
      withinTime: prepare.wallSeconds <= BARS.prepareSeconds,
      withinMemory: prepare.usage !== null && prepare.usage.peakRssBytes <= BARS.prepareRssBytes,
    },
    shards,
    commit: {
      ...step(commit),
      expected,
      outcome,
      serverCpuSeconds: cpuDelta(serverBefore, serverAfter),
      withinTime: commit.wallSeconds <= BARS.commitSeconds,
    },
    server: {
      cpuSeconds: serverFinal ? round(cpuSeconds(serverFinal)!) : null,
      peakRssMB: serverFinal ? megabytes(serverFinal.peakRssBytes) : null,
    },
  };
}

async function runShard(plan: NightPlan, server: MeasuredServer, endpoint: string, shard: number, night: string): Promise<ShardFigures> {
  const label = `${shard}/${plan.shards}`;
  const out = path.join(plan.trees, `shard-${shard}-of-${plan.shards}`);
  const builds = path.join(plan.trees, `.shard-${shard}-of-${plan.shards}.builds`);
  for (const leftover of [out, builds]) fs.rmSync(leftover, { recursive: true, force: true });
  const summaryFile = path.join(plan.trees, `summary-shard-${shard}-of-${plan.shards}.json`);

  plan.log(`shard ${label}: building from its prepared folder...`);
  const folder = path.join(night, `shard-${shard}-of-${plan.shards}`);
  const profiled = (step: string) => (plan.profile ? ['--cpu-prof', '--cpu-prof-dir', path.join(plan.profile, step)] : []);
  const build = await runMeasured(`build --prepared ${folder}`, profiled('build'), [
    plan.cli,
    'build',
    '--prepared',
    folder,
    '--out',
    out,
    '--progress',
    'lines',
    '--summary-json',
    summaryFile,
    ...(plan.packed ? ['--packed'] : []),
    ...plan.buildOptions,
  ]);
  plan.log(`shard ${label}: build ${describe(build)}`);
  if (build.code !== 0) throw new Error(`the build of shard ${label} failed with exit code ${build.code ?? build.signal}`);
  const summary = JSON.parse(fs.readFileSync(summaryFile, 'utf8'));

  plan.log(`shard ${label}: verifying...`);
  // A shard of 1 is the whole tree, and verify says so (and refuses --shard 1/1).
  const shardOption = plan.shards > 1 ? ['--shard', label] : [];
  const verify = await runMeasured(`verify ${shardOption.join(' ')}`, profiled('verify'), [
    plan.cli,
    'verify',
    '--dir',
    out,
    ...shardOption,
  ]);
  plan.log(`shard ${label}: verify ${describe(verify)}`);
  if (verify.code !== 0) throw new Error(`verify of shard ${label} failed with exit code ${verify.code ?? verify.signal}`);

  plan.log(`shard ${label}: staging...`);
  const serverBefore = await server.usageNow();
  const stage = await runMeasured(
    `publish (stage) ${label}`,
    profiled('stage'),
    [plan.cli, 'publish', '--dir', out, '--to', LOCATION, '--endpoint', endpoint, '--progress', 'lines'],
    S3_CREDENTIALS,
  );
  const serverAfter = await server.usageNow();
  plan.log(`shard ${label}: stage ${describe(stage)}; S3 server ${cpuDelta(serverBefore, serverAfter)} CPU-s`);
  if (stage.code !== 0) throw new Error(`staging shard ${label} failed with exit code ${stage.code ?? stage.signal}`);
  // A shard of 1 is the whole tree: publish stages and commits it in one command.
  const staged =
    plan.shards === 1
      ? /^published version ()()(\S+)/m.exec(stage.stdout)
      : /^staged shard (\d+) of (\d+) of version (\S+)/m.exec(stage.stdout);
  if (!staged || (plan.shards > 1 && (Number(staged[1]) !== shard || Number(staged[2]) !== plan.shards))) {
    throw new Error(`publish did not print "staged shard ${shard} of ${plan.shards} of version ...": ${firstLine(stage.stdout)}`);
  }
  // s3rver keeps each object as `<name>._S3rver_object` beside its metadata.
  const store = listTree(plan.store).filter((file) => file.file.endsWith('._S3rver_object'));

  // A runner holds its own shard's tree only: once staged, it goes (unless --keep).
  if (!plan.keep) for (const tree of [out, builds]) fs.rmSync(tree, { recursive: true, force: true });

  const steps = [build, verify, stage];
  const wallSeconds = steps.reduce((sum, one) => sum + one.wallSeconds, 0);
  const floors = plan.floors ? await measureFloors(plan, folder, label, wallSeconds) : null;
  const cpu = steps.every((one) => one.usage !== null) ? steps.reduce((sum, one) => sum + cpuSeconds(one.usage)!, 0) : null;
  const peakRssBytes = steps.every((one) => one.usage !== null) ? Math.max(...steps.map((one) => one.usage!.peakRssBytes)) : null;
  return {
    shard,
    shards: plan.shards,
    build: {
      ...step(build),
      files: summary.files,
      bytes: summary.bytes,
      stageSeconds: Object.fromEntries(
        Object.entries(summary.stageSeconds as Record<string, number>).map(([name, seconds]) => [name, round(seconds)]),
      ),
    },
    verify: step(verify),
    stage: {
      ...step(stage),
      version: staged[3]!,
      serverCpuSeconds: cpuDelta(serverBefore, serverAfter),
      storeBytes: store.reduce((sum, file) => sum + file.size, 0),
      storeObjects: store.length,
    },
    night: {
      wallSeconds: round(wallSeconds),
      cpuSeconds: cpu === null ? null : round(cpu),
      peakRssMB: peakRssBytes === null ? null : megabytes(peakRssBytes),
      withinTime: wallSeconds <= BARS.shardSeconds,
      withinMemory: peakRssBytes !== null && peakRssBytes <= BARS.shardRssBytes,
    },
    floors,
    profiles: plan.profile
      ? {
          build: summariseProfiles(path.join(plan.profile, 'build')),
          verify: summariseProfiles(path.join(plan.profile, 'verify')),
          stage: summariseProfiles(path.join(plan.profile, 'stage')),
        }
      : null,
  };
}

/**
 * The shard's floors: it is built again as a tree of files (measured: the plain build), and on
 * those files Node writes them again, then two threads read them and gzip them at level 2 (the
 * pack floor), then read them and hash them. Everything made here goes once measured.
 */
async function measureFloors(plan: NightPlan, folder: string, label: string, jobSeconds: number): Promise<ShardFloors> {
  const out = path.join(plan.trees, 'floor-tree');
  const builds = path.join(plan.trees, '.floor-tree.builds');
  const written = path.join(plan.trees, 'floor-written');
  for (const leftover of [out, builds, written]) fs.rmSync(leftover, { recursive: true, force: true });
  const summaryFile = path.join(plan.trees, 'summary-floor-tree.json');
  plan.log(`shard ${label}: the floors: building it as a tree of files...`);
  const build = await runMeasured(
    `build --prepared ${folder} (a tree of files)`,
    [],
    [plan.cli, 'build', '--prepared', folder, '--out', out, '--progress', 'lines', '--summary-json', summaryFile, ...plan.buildOptions],
  );
  plan.log(`shard ${label}: plain build ${describe(build)}`);
  if (build.code !== 0) throw new Error(`the plain build of shard ${label} failed with exit code ${build.code ?? build.signal}`);
  const summary = JSON.parse(fs.readFileSync(summaryFile, 'utf8'));
  const tree = fs.realpathSync(out);
  const files = listTree(tree);
  plan.log(`shard ${label}: the floors: Node writing the same ${files.length} files...`);
  // In parts of at most 2 GiB, each removed once timed: a second copy of a 100,000-wallet tree
  // (11 GB) beside the first would not fit a 24 GB machine's tmpfs with the store.
  const write = { seconds: 0 };
  for (let start = 0; start < files.length; ) {
    let end = start;
    for (let bytes = 0; end < files.length && (end === start || bytes + files[end]!.size <= 2 * 2 ** 30); end++) bytes += files[end]!.size;
    write.seconds += measureSyncFloor(files.slice(start, end), written).seconds;
    fs.rmSync(written, { recursive: true, force: true });
    start = end;
  }
  const names = files.map((file) => file.file);
  plan.log(`shard ${label}: the floors: read and gzip at level 2 on two threads...`);
  const gzip = await measurePass(tree, names, 'gzip');
  plan.log(`shard ${label}: the floors: read and sha256 on two threads...`);
  const sha256 = await measurePass(tree, names, 'sha256');
  if (!plan.keep) for (const leftover of [out, builds]) fs.rmSync(leftover, { recursive: true, force: true });
  const pass = (one: PassFigures): PassFigures => ({
    wallSeconds: round(one.wallSeconds),
    readSeconds: round(one.readSeconds),
    workSeconds: round(one.workSeconds),
    bytes: one.bytes,
    storedBytes: one.storedBytes,
  });
  return {
    plainBuild: { ...step(build), files: summary.files, bytes: summary.bytes },
    write: { wallSeconds: round(write.seconds) },
    gzip: pass(gzip),
    sha256: pass(sha256),
    jobOverPackFloor: round(jobSeconds / gzip.wallSeconds),
  };
}

/** The port s3rver-process.mjs prints on its first line of stdout. */
function portOf(server: MeasuredServer): Promise<number> {
  return new Promise((resolve, reject) => {
    let output = '';
    server.child.stdout!.on('data', (data: Buffer) => {
      output += data;
      if (output.includes('\n')) resolve(Number(output.trim().split('\n')[0]));
    });
    server.child.once('exit', (code) => reject(new Error(`s3rver exited with ${code} before listening`)));
  });
}

/** A measured step's figures, rounded as the bench prints them. */
export function step(measured: Measured): StepFigures {
  return {
    wallSeconds: round(measured.wallSeconds),
    cpuSeconds: measured.usage ? round(cpuSeconds(measured.usage)!) : null,
    userSeconds: measured.usage ? round(measured.usage.userSeconds) : null,
    systemSeconds: measured.usage ? round(measured.usage.systemSeconds) : null,
    peakRssMB: measured.usage ? megabytes(measured.usage.peakRssBytes) : null,
    exitCode: measured.code,
  };
}

/** One line of a step's figures, logged as soon as it ends (a run stopped later keeps them). */
function describe(measured: Measured): string {
  const figures = step(measured);
  return `exit ${measured.code ?? measured.signal}: ${figures.wallSeconds} s wall, ${figures.cpuSeconds ?? '?'} CPU-s, peak RSS ${figures.peakRssMB ?? '?'} MB`;
}

function cpuDelta(before: Usage | null, after: Usage | null): number | null {
  return before && after ? round(cpuSeconds(after)! - cpuSeconds(before)!) : null;
}

const firstLine = (text: string) => text.trim().split('\n')[0] ?? '';
const folderBytes = (folder: string) => listTree(folder).reduce((sum, file) => sum + file.size, 0);
const round = (value: number) => Math.round(value * 100) / 100;
const megabytes = (bytes: number) => Math.round(bytes / 2 ** 20);

/** The figures as the table `npm run bench` prints. */
export function formatNight(figures: NightFigures): string {
  const gib = (bytes: number) => `${(bytes / 2 ** 30).toFixed(2)} GiB`;
  const usage = (one: StepFigures) =>
    `${one.wallSeconds} s wall, ${one.cpuSeconds ?? '?'} CPU-s (user ${one.userSeconds ?? '?'}, sys ${one.systemSeconds ?? '?'}), peak RSS ${one.peakRssMB ?? '?'} MB`;
  const verdict = (met: boolean) => (met ? 'met' : 'NOT MET');
  const lines: string[] = [];
  const prepare = figures.prepare;
  lines.push(
    `prepare                 ${usage(prepare)}; ${gib(prepare.bytes)} of shard folders (bar ${BARS.prepareSeconds} s: ${verdict(prepare.withinTime)}; ` +
      `${BARS.prepareRssBytes / 2 ** 20} MB: ${verdict(prepare.withinMemory)})`,
    `    stages              ${Object.entries(prepare.stageSeconds)
      .map(([stage, seconds]) => `${stage} ${round(seconds)}s`)
      .join(', ')}`,
  );
  for (const shard of figures.shards) {
    const label = `shard ${shard.shard}/${shard.shards}`;
    lines.push(
      `${label.padEnd(24)}`,
      `  build                 ${usage(shard.build)}; ${shard.build.files} files, ${gib(shard.build.bytes)}`,
      `    stages              ${Object.entries(shard.build.stageSeconds)
        .map(([stage, seconds]) => `${stage} ${round(seconds)}s`)
        .join(', ')}`,
      `  verify                ${usage(shard.verify)}`,
      `  stage (publish)       ${usage(shard.stage)}`,
      `    S3 server           ${shard.stage.serverCpuSeconds ?? '?'} CPU-s (apart from the above); store now ${shard.stage.storeObjects} objects, ${gib(shard.stage.storeBytes)}`,
      `    version             ${shard.stage.version}`,
      `  build+verify+stage    ${shard.night.wallSeconds} s (bar ${BARS.shardSeconds} s: ${verdict(shard.night.withinTime)}), ${shard.night.cpuSeconds ?? '?'} CPU-s, ` +
        `peak RSS ${shard.night.peakRssMB ?? '?'} MB (bar ${BARS.shardRssBytes / 2 ** 20} MB: ${verdict(shard.night.withinMemory)})`,
    );
    if (shard.profiles) {
      for (const [name, step] of [
        ['build', shard.build],
        ['verify', shard.verify],
        ['stage', shard.stage],
      ] as const)
        lines.push(`  where ${name}'s seconds went:`, formatProfileSummary(shard.profiles[name], step.cpuSeconds));
    }
    const floors = shard.floors;
    if (floors) {
      const pass = (one: PassFigures) =>
        `${one.wallSeconds} s wall (threads: reading ${one.readSeconds} s, work ${one.workSeconds} s), ${gib(one.bytes)} read`;
      lines.push(
        `  the floors, on the same shard as a tree of files:`,
        `    plain build         ${usage(floors.plainBuild)}; ${floors.plainBuild.files} files, ${gib(floors.plainBuild.bytes)}`,
        `    Node writing them   ${floors.write.wallSeconds} s`,
        `    pack floor (gzip 2) ${pass(floors.gzip)}, ${gib(floors.gzip.storedBytes)} compressed`,
        `    sha256 of them      ${pass(floors.sha256)}`,
        `    job / pack floor    ${floors.jobOverPackFloor} (bar 2)`,
      );
    }
  }
  const commit = figures.commit;
  lines.push(
    `commit                  ${usage(commit)} (bar ${BARS.commitSeconds} s: ${verdict(commit.withinTime)})`,
    `  S3 server             ${commit.serverCpuSeconds ?? '?'} CPU-s (apart from the above)`,
    `  outcome               ${commit.expected === 'refused' ? 'refused, as it must be with shards missing' : 'committed'}: ${commit.outcome}`,
    `S3 server in all        ${figures.server.cpuSeconds ?? '?'} CPU-s, peak RSS ${figures.server.peakRssMB ?? '?'} MB`,
    // The shards' jobs run side by side on runners of their own: the night is the slowest of them.
    `the night, a runner each  prepare + the slowest shard + commit = ` +
      `${round(prepare.wallSeconds + Math.max(...figures.shards.map((shard) => shard.night.wallSeconds)) + commit.wallSeconds)} s (bar 1,500 s)`,
  );
  return `\n${lines.join('\n')}\n`;
}
