/**
 * `prepare --input DIR --out NIGHT --shards N [--since PREV | --full]`: its list of stages
 * (build/stages/index.ts: read and check the exports, load them, compute what depends on every
 * wallet, then one folder per shard, `NIGHT/shard-K-of-N/`, build/prepared-folder.ts, from which
 * `build --prepared` builds that shard alone), run in the lifecycle it shares with `build`
 * (lifecycle.ts), then the night's own record (build/night-state.ts). With `--since`, the previous
 * night's unchanged days are reused (docs/incremental-nights.md); an incremental night that finds
 * it must be full after all runs the list again as a full night, given why.
 * The folders are written into a work folder inside NIGHT and moved into place only when every
 * one is complete; a lock beside NIGHT keeps two prepares apart and leaves nothing in it.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { BuildConfig } from './config.ts';
import { EXIT_BUSY, UserError, messageOf } from '../core/errors.ts';
import { closeInputs, openInputs, type OpenedInput } from './input/read.ts';
import { fingerprintWhileWorking } from './input/fingerprint.ts';
import { FileLock } from './swap/lock.ts';
import { isWithin } from '../core/paths.ts';
import { NO_FAULTS } from './faults.ts';
import { PREPARED_FOLDER_NAME, preparedFolderName, readPreparedFacts } from './prepared-folder.ts';
import { runStages, take } from './stages/stage.ts';
import { PREPARE_STAGES } from './stages/index.ts';
import { runCommand } from './lifecycle.ts';
import { seasonLines } from './compute/seasons.ts';
import { NIGHT_FILE, NIGHT_FILES, openPreviousNight, writeNightRecord, type PreviousNight } from './night-state.ts';
import type { NightKind } from '../schemas/night-kind.ts';

export interface PrepareConfig extends BuildConfig {
  shards: number;
  /** `--since PREV`: the previous night's folder; null without it, or with `--full`. */
  since?: string | null;
}

export interface PrepareSummary {
  night: string;
  now: string;
  lastClosedDay: string;
  shards: number;
  /** The shard folders, in shard order. */
  folders: string[];
  bytes: number;
  seconds: number;
  dailyAsOf: string | null;
  seasons: { season: number; asOf: string | null; participants: number }[];
  stageSeconds: Record<string, number>;
  peakRssBytes: number;
  /** What kind of night this was (schemas/prepare-summary.ts): the whole history, or the days after a previous night. */
  nightKind: NightKind;
}

/** At most this many shards: a shard is a CI job, and each folder holds a copy of the shared tables. */
export const MAX_SHARDS = 1024;

/** The lock beside NIGHT (`.NIGHT.prepare.lock`), so that a finished prepare leaves nothing in NIGHT but the night. */
const lockFileOf = (night: string) => path.join(path.dirname(night), `.${path.basename(night)}.prepare.lock`);
const WORK_PREFIX = '.prepare-';

export async function prepareNight(config: PrepareConfig): Promise<PrepareSummary> {
  const started = performance.now();
  const night = config.outDir;
  let inputs: OpenedInput[] = [];
  let inputsDigest!: Promise<string>;
  let previous: PreviousNight | null = null;
  /** Inside NIGHT: the night's folders and files as the stages write them, and the scratch database. */
  let work: string | null = null;
  return runCommand({
    name: 'prepare',
    options: config,
    async open(run) {
      run.release(() => closeInputs(inputs));
      inputs = await openInputs(config.inputDir, run.interruption.signal);
      inputsDigest = fingerprintWhileWorking(inputs);
      return inputs;
    },
    async claim(run) {
      const lock = await lockNight(night, config.inputDir);
      run.release(() => lock.release());
      // Checked before anything is written: an altered previous night is refused with NIGHT untouched.
      previous = config.since ? await openPreviousNight(config.since, config) : null;
      claimNight(night);
      work = path.join(night, `${WORK_PREFIX}${crypto.randomBytes(6).toString('hex')}`);
      run.release(() => (work ? fsp.rm(work, { recursive: true, force: true }) : undefined));
      run.onForcedExit(() => {
        if (work) fs.rmSync(work, { recursive: true, force: true });
      });
      const scratch = path.join(work, 'scratch');
      await fsp.mkdir(scratch, { recursive: true });
      return scratch;
    },
    // A night that needs to be full after all is given the previous night as one not to use, and why.
    runStages(db, fullNight, run) {
      const context = { config, db, progress: run.progress, signal: run.interruption.signal, inputsDigest, faults: NO_FAULTS };
      return runStages(PREPARE_STAGES, context, {
        inputs,
        shards: config.shards,
        nightFolder: work!,
        previous: fullNight === null ? previous : { usable: false, why: fullNight },
        forNextNight: true,
      });
    },
    async goLive(values, { progress }) {
      progress.start('move into place');
      const folders = await moveIntoPlace(work!, night, config.shards);
      await fsp.rm(work!, { recursive: true, force: true });
      work = null;
      const { nightRecord, leaderboards, dailyAsOf, nightKind } = take(
        values,
        ['nightRecord', 'leaderboards', 'dailyAsOf', 'nightKind'],
        'prepare',
      );
      await writeNightRecord(night, nightRecord, await knownHashes(folders));
      progress.end();
      let bytes = 0;
      for (const folder of folders) for (const name of await fsp.readdir(folder)) bytes += (await fsp.stat(path.join(folder, name))).size;
      return {
        night,
        now: config.nowIso,
        lastClosedDay: config.lastClosedDay,
        shards: config.shards,
        folders,
        bytes,
        seconds: (performance.now() - started) / 1000,
        dailyAsOf,
        seasons: seasonLines(leaderboards),
        stageSeconds: progress.stageSeconds,
        peakRssBytes: process.resourceUsage().maxRSS * 1024,
        nightKind,
      };
    },
  });
}

/**
 * The lock beside NIGHT taken (its parent made if need be); refused when NIGHT would hold the
 * exports or be held by them, or another prepare holds it.
 */
async function lockNight(night: string, inputDir: string): Promise<FileLock> {
  if (isWithin(inputDir, night) || isWithin(night, inputDir)) {
    throw new UserError(
      `--out ${night} and --input ${inputDir} overlap: prepare writes its shard folders into --out, which must be a folder of its own (e.g. --out night)`,
    );
  }
  try {
    fs.mkdirSync(path.dirname(night), { recursive: true });
  } catch (error) {
    throw new UserError(`--out ${night} cannot be made (${messageOf(error)})`, undefined, { cause: error });
  }
  const lock = await FileLock.tryAcquire(lockFileOf(night));
  if (lock === null) throw new UserError(`--out ${night} is being prepared by another prepare; run again when it has ended`, EXIT_BUSY);
  return lock;
}

/**
 * NIGHT made if need be; refused when it is a file. Work folders of a prepare killed outright are
 * removed (the lock says none runs).
 */
function claimNight(night: string): void {
  try {
    fs.mkdirSync(night, { recursive: true });
  } catch (error) {
    throw new UserError(`--out ${night} cannot be made (${messageOf(error)})`, undefined, { cause: error });
  }
  if (!fs.statSync(night).isDirectory()) throw new UserError(`--out ${night} is not a folder: prepare writes one folder per shard into it`);
  for (const name of fs.readdirSync(night)) {
    if (name.startsWith(WORK_PREFIX)) fs.rmSync(path.join(night, name), { recursive: true, force: true });
  }
}

/** The sha256 of every shard folder's files but its facts, as its facts name them (hashed once, as prepare wrote them). */
async function knownHashes(folders: string[]): Promise<Record<string, string>> {
  const known: Record<string, string> = {};
  for (const folder of folders) {
    const facts = await readPreparedFacts(folder);
    for (const [name, sha256] of Object.entries(facts.files)) known[path.join(path.basename(folder), name)] = sha256;
  }
  return known;
}

/**
 * The new shard folders replace those of an earlier prepare of NIGHT (of any shard count), each
 * moved by one rename once every one is complete, so a shard folder is always whole. The night's
 * record goes first and is written again last: a kill while they move leaves NIGHT with no record,
 * which a later `--since` takes for a night to make whole, and NIGHT to be prepared again.
 */
async function moveIntoPlace(work: string, night: string, shards: number): Promise<string[]> {
  await fsp.rm(path.join(night, NIGHT_FILE), { force: true });
  for (const name of await fsp.readdir(night)) {
    if (PREPARED_FOLDER_NAME.test(name)) await fsp.rm(path.join(night, name), { recursive: true, force: true });
  }
  for (const name of NIGHT_FILES) await fsp.rename(path.join(work, name), path.join(night, name));
  const folders: string[] = [];
  for (let index = 1; index <= shards; index++) {
    const name = preparedFolderName({ index, count: shards });
    await fsp.rename(path.join(work, name), path.join(night, name));
    folders.push(path.join(night, name));
  }
  return folders;
}
