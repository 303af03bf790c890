/**
 * The night folder's own record, `NIGHT/night.json`, written and read here only: what a later
 * `prepare --since NIGHT` needs to trust this night and reuse it (docs/incremental-nights.md).
 *
 *   night.json          release, format, shard count, build instant, the inputs' fingerprint,
 *                       each season's day A, the next points-history and account keys, and the
 *                       sha256 of every other file of the night, itself sealed by the sha256 of
 *                       its own content
 *   input-days.parquet  the digest of the exports' rows per file and day (compute/input-days.ts)
 *   accounts.parquet    every address with its lasting key and the day of its first balance row
 *   points-totals.parquet
 *                       every wallet-season's exact running total on its season's day A, with
 *                       what its sums were made of (compute/points-history.ts), where the next
 *                       night's sums start from
 *   shard-K-of-N/       the shard folders (prepared-folder.ts)
 *
 * A previous night that cannot be trusted is never used: one of another release, shard count or
 * a later build instant makes a full night (the summary says why); one whose files differ from its
 * record (changed, added, removed) is refused by name.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { UserError } from '../core/errors.ts';
import { RELEASE } from '../core/release.ts';
import { DateStringSchema } from '../schemas/common.ts';
import { sha256OfFile } from './prepared-folder.ts';

export const NIGHT_FILE = 'night.json';
export const INPUT_DAYS_FILE = 'input-days.parquet';
export const ACCOUNTS_FILE = 'accounts.parquet';
export const POINTS_TOTALS_FILE = 'points-totals.parquet';
/** The files of the night folder besides its record and its shard folders, which prepare moves into place. */
export const NIGHT_FILES = [INPUT_DAYS_FILE, ACCOUNTS_FILE, POINTS_TOTALS_FILE];
/**
 * The night folder's layout: 2 carries the accounts' lasting keys and the points histories'
 * running totals, and cuts the shards' balance rows into segments of days. A night of another
 * layout is not reused (the night is full, and says why).
 */
export const NIGHT_FORMAT = 2;

const NightRecordSchema = z
  .object({
    format: z.literal(NIGHT_FORMAT),
    release: z.string(),
    /** How the summary of a later night names this one: its build instant and inputs' fingerprint. */
    id: z.string(),
    now: z.iso.datetime(),
    lastClosedDay: DateStringSchema,
    shards: z.number().int().min(1),
    inputs: z.string().regex(/^[0-9a-f]{64}$/),
    /** The first points-history key no wallet-season of this night or an earlier one it reused holds. */
    nextHistoryKey: z.number().int().min(1),
    /** The first account key no address of this night holds (accounts.parquet). */
    nextAccountKey: z.number().int().min(1),
    /** Each known season's day A (days since 1970-01-01), null when it had none: where the running totals of points-totals.parquet stand. */
    seasonDays: z.record(z.string().regex(/^[1-9][0-9]*$/), z.number().int().nullable()),
    /** The sha256 of every file of the night but this one, by path relative to the night folder. */
    files: z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/)),
    seal: z.string().regex(/^[0-9a-f]{64}$/),
  })
  .strict();

export type NightRecord = z.infer<typeof NightRecordSchema>;
/** What the night's record says of the night besides its files, made as the night is split into shards (build/stages/split-into-shards.ts). */
export type NightRecordFacts = Omit<NightRecord, 'seal' | 'files' | 'format' | 'release'>;

const sealOf = (record: Omit<NightRecord, 'seal'>) => crypto.createHash('sha256').update(JSON.stringify(record)).digest('hex');

export const nightIdOf = (now: string, inputs: string) => `${now}/${inputs.slice(0, 12)}`;

/** What `--since PREV` gives: a night to reuse, or why the night is full. */
export type PreviousNight = { usable: true; folder: string; record: NightRecord } | { usable: false; why: string };

/**
 * An incremental night (build/stages/find-changed-days.ts): the first day it computes (`from`, days
 * since 1970-01-01), the days before being the previous night's, which it reuses; and whether its
 * points histories start from the previous night's running totals (`carriedTotals`: no season's
 * day A of that night is on or after `from`, so its totals hold only rows that did not change) or
 * sum every earlier row again (a night that restates a day that night had summed).
 */
export interface NightResume {
  from: number;
  previousNight: string;
  record: NightRecord;
  carriedTotals: boolean;
}

/**
 * The previous night at `folder`, checked: missing, of another release or shard count, or with a
 * later build instant, it is not used (and the reason says so); altered, it is refused, naming the
 * file and `--full`. Every file is hashed: the night reuses some of them as they are.
 */
export async function openPreviousNight(folder: string, expect: { shards: number; nowIso: string }): Promise<PreviousNight> {
  const recordFile = path.join(folder, NIGHT_FILE);
  if (!fs.existsSync(folder)) return { usable: false, why: `no previous night at ${folder}` };
  if (!fs.existsSync(recordFile))
    return {
      usable: false,
      why: `${folder} holds no ${NIGHT_FILE} (a night prepared by an earlier release, or one whose prepare did not end)`,
    };
  const altered = (what: string) =>
    new UserError(
      `--since ${folder}: ${what}; the previous night was altered after prepare wrote it, and is not reused: run prepare with --full (or --since a night left as prepare wrote it)`,
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(await fsp.readFile(recordFile, 'utf8'));
  } catch {
    throw altered(`${recordFile} is not JSON`);
  }
  const format = (parsed as { format?: unknown } | null)?.format;
  const release = (parsed as { release?: unknown } | null)?.release;
  if (release !== RELEASE) {
    return { usable: false, why: `the previous night was prepared by another release (${String(release)}; this is ${RELEASE})` };
  }
  if (format !== NIGHT_FORMAT) {
    return {
      usable: false,
      why: `the previous night's folder has another layout (night format ${String(format)}; this release reads format ${NIGHT_FORMAT})`,
    };
  }
  const result = NightRecordSchema.safeParse(parsed);
  if (!result.success)
    throw altered(
      `${recordFile} does not read as prepare wrote it (${result.error.issues[0]?.message ?? ''} at ${result.error.issues[0]?.path.join('.') ?? ''})`,
    );
  const { seal, ...rest } = result.data;
  if (sealOf(rest) !== seal) throw altered(`${recordFile} no longer matches its seal`);
  const record = result.data;
  if (record.shards !== expect.shards)
    return { usable: false, why: `the previous night was cut into ${record.shards} shards, this one into ${expect.shards}` };
  if (Date.parse(record.now) > Date.parse(expect.nowIso))
    return { usable: false, why: `the previous night's build instant ${record.now} is later than this one's ${expect.nowIso}` };
  const found = await filesUnder(folder);
  for (const name of found) {
    if (!(name in record.files)) throw altered(`${path.join(folder, name)} was not written by prepare`);
  }
  for (const [name, want] of Object.entries(record.files)) {
    const file = path.join(folder, name);
    if (!found.includes(name)) throw altered(`${file} is missing`);
    if ((await sha256OfFile(file)) !== want) throw altered(`${file} was changed (its sha256 differs from the night's record)`);
  }
  return { usable: true, folder, record };
}

/** Every file under `folder` (relative paths), but the record, and the work folders of a prepare that did not end. */
async function filesUnder(folder: string): Promise<string[]> {
  const entries = await fsp.readdir(folder, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => !entry.isDirectory())
    .map((entry) => path.relative(folder, path.join(entry.parentPath, entry.name)))
    .filter((name) => name !== NIGHT_FILE && !name.startsWith('.prepare-'))
    .sort();
}

/**
 * Records the night folder as it stands: written last, once every other file is in place. `known`
 * holds the sha256 of files whose bytes prepare hashed already (a shard folder's files, which its
 * facts name): they are not read again.
 */
export async function writeNightRecord(folder: string, record: NightRecordFacts, known: Record<string, string> = {}): Promise<void> {
  const files: Record<string, string> = {};
  for (const name of await filesUnder(folder)) files[name] = known[name] ?? (await sha256OfFile(path.join(folder, name)));
  const unsealed = { format: NIGHT_FORMAT, release: RELEASE, ...record, files } as const;
  const sealed = NightRecordSchema.parse({ ...unsealed, seal: sealOf(unsealed) });
  const temporary = path.join(folder, `.${NIGHT_FILE}.tmp`);
  await fsp.writeFile(temporary, `${JSON.stringify(sealed)}\n`);
  await fsp.rename(temporary, path.join(folder, NIGHT_FILE));
}
