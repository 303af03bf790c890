/**
 * `prepare --input DIR --out NIGHT --shards N [--since PREV | --full]`: the night's side of the
 * build's stages once (read and check the exports, load them, compute what depends on every
 * wallet), then one folder per shard, `NIGHT/shard-K-of-N/` (build/prepared-folder.ts), from which
 * `build --prepared` builds that shard alone, and the night's own record (build/night-state.ts).
 * With `--since`, the previous night's unchanged days are reused (docs/incremental-nights.md).
 * The folders are written into a work folder inside NIGHT and moved into place only when every
 * one is complete; a lock beside NIGHT keeps two prepares apart and leaves nothing in it.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { BuildConfig } from './config.ts';
import { openScratchDatabase, type Database } from './database.ts';
import { failureOf } from './errors.ts';
import { Progress } from '../core/progress.ts';
import { EXIT_BUSY, UserError, messageOf } from '../core/errors.ts';
import { closeInputs, openInputs, type OpenedInput } from './input/read.ts';
import { fingerprintWhileWorking } from './input/fingerprint.ts';
import { Interruption } from './interruption.ts';
import { FileLock } from './swap/lock.ts';
import { isWithin } from '../core/paths.ts';
import { NO_FAULTS } from './faults.ts';
import { PREPARED_FOLDER_NAME, preparedFolderName, readPreparedFacts } from './prepared-folder.ts';
import { runStages, take, type StageContext } from './stages/stage.ts';
import { NIGHT_STAGES } from './stages/index.ts';
import { seasonLines } from './compute/seasons.ts';
import {
  IncrementalNightImpossible,
  NIGHT_FILE,
  NIGHT_FILES,
  nightIdOf,
  openPreviousNight,
  writeNightRecord,
  type PreviousNight,
} from './night-state.ts';
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
  const progress = new Progress(config.progress);
  const night = config.outDir;
  let inputs: OpenedInput[] = [];
  let db: Database | null = null;
  let lock: FileLock | null = null;
  let work: string | null = null;
  const interruption = new Interruption(() => {
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });
  interruption.onInterrupt(() => db?.connection.interrupt());
  try {
    inputs = await openInputs(config.inputDir, interruption.signal);
    const inputsDigest = fingerprintWhileWorking(inputs);
    lock = await lockNight(night, config.inputDir);
    // Checked before anything is written: an altered previous night is refused with NIGHT untouched.
    let previous: PreviousNight | null = config.since ? await openPreviousNight(config.since, config) : null;
    claimNight(night);
    for (;;) {
      work = path.join(night, `${WORK_PREFIX}${crypto.randomBytes(6).toString('hex')}`);
      await fsp.mkdir(path.join(work, 'scratch'), { recursive: true });
      db = await openScratchDatabase(path.join(work, 'scratch'), 'prepare', config);
      const context: StageContext = {
        config,
        mode: { kind: 'prepare', shards: config.shards, night: work, previous },
        db,
        progress,
        signal: interruption.signal,
        inputs,
        tree: null,
        values: {},
        inputsDigest,
        faults: NO_FAULTS,
      };
      try {
        await runStages(NIGHT_STAGES, context);
      } catch (error) {
        if (!(error instanceof IncrementalNightImpossible)) throw error;
        // Rare (docs/incremental-nights.md): the night is prepared again, whole.
        db.close();
        db = null;
        await fsp.rm(work, { recursive: true, force: true });
        previous = { usable: false, why: error.message };
        continue;
      }
      const [{ keys, accountKeys } = { keys: 0, accountKeys: 0 }] = await db.rows<{ keys: number | null; accountKeys: number | null }>(
        'SELECT (SELECT max(wallet) FROM history_wallets)::INTEGER AS keys, (SELECT max(key) FROM addresses)::INTEGER AS accountKeys',
      );
      const seasonDays = await db.rows<{ season: number; day: number | null }>(
        `SELECT season::INTEGER AS season, (day - DATE '1970-01-01')::INTEGER AS day FROM season_days ORDER BY season`,
      );
      db.close();
      db = null;
      await fsp.rm(path.join(work, 'scratch'), { recursive: true, force: true });

      progress.start('move into place');
      const folders = await moveIntoPlace(work, night, config.shards);
      await fsp.rm(work, { recursive: true, force: true });
      work = null;
      const inputs_ = await inputsDigest;
      const { resume } = take(context.values, ['resume'], 'prepare');
      await writeNightRecord(
        night,
        {
          id: nightIdOf(config.nowIso, inputs_),
          now: config.nowIso,
          lastClosedDay: config.lastClosedDay,
          shards: config.shards,
          inputs: inputs_,
          nextHistoryKey: Math.max((keys ?? 0) + 1, resume?.record.nextHistoryKey ?? 1),
          nextAccountKey: Math.max((accountKeys ?? 0) + 1, resume?.record.nextAccountKey ?? 1),
          seasonDays: Object.fromEntries(seasonDays.map((row) => [String(row.season), row.day])),
        },
        await knownHashes(folders),
      );
      progress.end();
      const { leaderboards, dailyAsOf, nightKind } = take(context.values, ['leaderboards', 'dailyAsOf', 'nightKind'], 'prepare');
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
    }
  } catch (error) {
    progress.end();
    throw failureOf(error, { signal: interruption.signal, settings: config, outDir: night, inputs });
  } finally {
    db?.close();
    if (work) await fsp.rm(work, { recursive: true, force: true });
    lock?.release();
    await closeInputs(inputs);
    interruption.dispose();
  }
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
