/**
 * Night, last of `prepare`'s list: the night cut into one folder per shard (build/prepared-folder.ts):
 * each shard's rows of the tables its build reads, written in one pass per table (DuckDB's
 * partitioned Parquet writer), the small shared tables copied into every folder, and the night's
 * facts; and beside them what the next night carries over (build/night-state.ts): the digests, the
 * accounts' lasting keys, the points histories' running totals, and the facts of the night's
 * record, which prepare writes once the night is in place.
 *
 * The balance rows and the points histories' days are written in segments of days: a full night
 * writes one; an incremental night writes the days it computed, and keeps the previous night's
 * segments of the days before (linked as they are, or cut at the first day computed), merging them
 * when they grow many (docs/incremental-nights.md).
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { literalPathSql } from '../database.ts';
import { shardNumberSql } from '../../core/shard.ts';
import { dayNumber, dayText } from '../compute/days.ts';
import { dayOfInstantSql } from '../compute/input-days.ts';
import { POINTS_TOTALS_SQL } from '../compute/points-history.ts';
import { countOf } from '../../core/format.ts';
import { ACCOUNTS_FILE, INPUT_DAYS_FILE, nightIdOf, POINTS_TOTALS_FILE, type NightRecordFacts, type NightResume } from '../night-state.ts';
import {
  PREPARED_FORMAT,
  PREPARED_TABLES,
  segmentFile,
  preparedFolderName,
  readPreparedFacts,
  sha256OfFile,
  storedColumnsSql,
  storedNamesSql,
  PREPARED_TABLE_NAMES,
  tableFile,
  writePreparedFacts,
  type PreparedFacts,
  type PreparedTable,
  type Segment,
  type SegmentedTableName,
} from '../prepared-folder.ts';
import { defineStage, fullNightNeeded, type StageContext } from './stage.ts';
import { SUMMARY_DAYS } from '../../schemas/night-summary.ts';

/** A shard folder holds at most this many segments of a table: more are merged into one. */
const MAX_SEGMENTS = 8;
/** The first day of a full night's first segment: every day before. */
const EVERY_DAY = -(2 ** 31);

/** A shard's segments of each segmented table, and the sha256 of those kept from the previous night as they are. */
interface ShardSegments {
  lists: Record<SegmentedTableName, Segment[]>;
  hashes: Record<string, string>;
}

export const splitIntoShards = defineStage({
  name: 'split into shards',
  side: 'night',
  reads: [
    ...PREPARED_TABLE_NAMES,
    'addresses',
    'venue_b_accounts',
    'history_wallets',
    'history_totals',
    'points_history_days_by_shard',
    'input_days',
    'account_first_days',
    'season_days',
  ],
  writes: ['address_shards'],
  needs: [
    'shards',
    'nightFolder',
    'resume',
    'nightKind',
    'dailyAsOf',
    'exampleWallet',
    'leaderboards',
    'seasonsIndex',
    'participantsByDay',
  ],
  makes: ['nightRecord'],
  async run(context, given) {
    const { shards, nightFolder: night, resume } = given;
    const { db } = context;
    await checkTypes(context);
    const shardOf = (address: string) => shardNumberSql(shards, address);
    const from = resume?.from ?? null;
    const joined = resume ? await joinedWithEarlierDays(context, resume.from, resume.record.nextHistoryKey) : null;
    if (joined !== null) return fullNightNeeded(joined);
    await writeNightFiles(context, night);
    await db.run(`CREATE TABLE address_shards AS SELECT id, ${shardOf('address')} AS shard FROM addresses`);
    const folders = Array.from({ length: shards }, (_, i) => path.join(night, preparedFolderName({ index: i + 1, count: shards })));
    for (const folder of folders) await fsp.mkdir(folder, { recursive: true });
    // Each shard's reused segments first: the new segments' numbers follow theirs.
    const segments: ShardSegments[] = [];
    for (let index = 1; index <= shards; index++) {
      segments.push(
        resume
          ? await reuseSegments(context, {
              previousNight: resume.previousNight,
              from: from!,
              index,
              shards,
              folder: folders[index - 1]!,
              night,
            })
          : { lists: { balance_rows: [], points_history_days: [] }, hashes: {} },
      );
    }
    const parts = path.join(night, 'parts');
    await fsp.mkdir(parts, { recursive: true });
    for (const table of PREPARED_TABLES) {
      if (context.signal.aborted) throw context.signal.reason;
      const columns = storedColumnsSql(table);
      if (table.cut === null) {
        // Small, and the same in every shard: written once, copied.
        const once = path.join(parts, tableFile(table));
        await db.run(`COPY (SELECT ${columns} FROM ${table.name}) TO ${literalPathSql(once)} (FORMAT parquet)`);
        for (const folder of folders) await fsp.copyFile(once, path.join(folder, tableFile(table)));
        continue;
      }
      const partitioned = path.join(parts, table.name);
      if (!table.segmented) {
        await db.run(
          `COPY (SELECT ${columns}, shard FROM (${table.cut(shardOf, from)})) TO ${literalPathSql(partitioned)} (FORMAT parquet, PARTITION_BY (shard))`,
        );
        for (let index = 1; index <= shards; index++)
          await gatherShard(context, table, path.join(partitioned, `shard=${index}`), path.join(folders[index - 1]!, tableFile(table)));
        continue;
      }
      // The days computed, in one segment; an incremental night that reaches back past the first
      // of the night summary's days cuts it there, in two, so that the next night that restates
      // one of those days keeps the older as it is and cuts only the newer one. The newest holds
      // any later day (a balance row dated ahead of the night). A full night writes one: a second
      // partition of every row cost it 2% (bench/LOG.md), for a rare restatement of its days.
      const last = dayNumber(context.config.lastClosedDay);
      const recent = last - SUMMARY_DAYS + 1;
      const latest = await latestDayOf(context, table, last);
      const ranges =
        from === null
          ? [{ part: 0, from: EVERY_DAY, to: latest }]
          : [
              { part: 0, from, to: recent - 1 },
              { part: 1, from: Math.max(from, recent), to: latest },
            ].filter((range) => range.from <= range.to);
      // One segment is partitioned by shard alone: a constant second key slowed every full
      // night's largest write (bench/LOG.md).
      const split = ranges.length > 1;
      const part = `(NOT (${table.segmented.before(recent)}))::INTEGER`;
      await db.run(`
        COPY (SELECT ${columns}, shard${split ? `, ${part} AS part` : ''} FROM (${table.cut(shardOf, from)}))
        TO ${literalPathSql(partitioned)} (FORMAT parquet, PARTITION_BY (shard${split ? ', part' : ''}))`);
      for (let index = 1; index <= shards; index++) {
        const list = segments[index - 1]!.lists[table.name as SegmentedTableName];
        for (const range of ranges) {
          const name = segmentFile(table, list.length + 1);
          const shardPartition = path.join(partitioned, `shard=${index}`);
          await gatherShard(
            context,
            table,
            split ? path.join(shardPartition, `part=${range.part}`) : shardPartition,
            path.join(folders[index - 1]!, name),
          );
          list.push({ file: name, from: range.from, to: range.to });
        }
      }
    }
    await fsp.rm(parts, { recursive: true, force: true });
    const inputs = await context.inputsDigest;
    for (let index = 1; index <= shards; index++) {
      const folder = folders[index - 1]!;
      const { lists, hashes } = segments[index - 1]!;
      const files: Record<string, string> = {};
      const segmentFiles = Object.values(lists).flatMap((list) => list.map((segment) => segment.file));
      for (const name of [...PREPARED_TABLES.filter((table) => !table.segmented).map(tableFile), ...segmentFiles]) {
        files[name] = hashes[name] ?? (await sha256OfFile(path.join(folder, name)));
      }
      await writePreparedFacts(folder, {
        format: PREPARED_FORMAT,
        shard: { index, count: shards },
        now: context.config.nowIso,
        lastClosedDay: context.config.lastClosedDay,
        inputs,
        dailyAsOf: given.dailyAsOf,
        exampleWallet: given.exampleWallet,
        leaderboards: given.leaderboards,
        seasonsIndex: given.seasonsIndex,
        participantsByDay: Object.fromEntries(given.participantsByDay.get(index) ?? []),
        segments: lists,
        nightKind: given.nightKind,
        files,
      });
    }
    return { nightRecord: await nightRecordOf(context, shards, resume) };
  },
});

/**
 * The night's record but its files (build/night-state.ts): the next keys a later night gives start
 * above every key of this night and of the nights it reused, and each season's day A says where
 * the carried running totals stand.
 */
async function nightRecordOf(context: StageContext, shards: number, resume: NightResume | null): Promise<NightRecordFacts> {
  const [{ keys, accountKeys } = { keys: 0, accountKeys: 0 }] = await context.db.rows<{ keys: number | null; accountKeys: number | null }>(
    'SELECT (SELECT max(wallet) FROM history_wallets)::INTEGER AS keys, (SELECT max(key) FROM addresses)::INTEGER AS accountKeys',
  );
  const seasonDays = await context.db.rows<{ season: number; day: number | null }>(
    `SELECT season::INTEGER AS season, (day - DATE '1970-01-01')::INTEGER AS day FROM season_days ORDER BY season`,
  );
  const inputs = await context.inputsDigest;
  return {
    id: nightIdOf(context.config.nowIso, inputs),
    now: context.config.nowIso,
    lastClosedDay: context.config.lastClosedDay,
    shards,
    inputs,
    nextHistoryKey: Math.max((keys ?? 0) + 1, resume?.record.nextHistoryKey ?? 1),
    nextAccountKey: Math.max((accountKeys ?? 0) + 1, resume?.record.nextAccountKey ?? 1),
    seasonDays: Object.fromEntries(seasonDays.map((row) => [String(row.season), row.day])),
  };
}

/**
 * What the next night carries over, beside the shard folders: the digests of the exports' rows,
 * every address with its lasting key and the day of its first balance row, and every
 * wallet-season's running total on its day A (exact: Parquet has no 128-bit integer, and the
 * sums stay below 10^38, so DECIMAL(38,0) holds them).
 */
async function writeNightFiles(context: StageContext, night: string): Promise<void> {
  const { db } = context;
  await db.run(
    `COPY (SELECT * FROM input_days ORDER BY file, day) TO ${literalPathSql(path.join(night, INPUT_DAYS_FILE))} (FORMAT parquet)`,
  );
  await db.run(`
    COPY (SELECT a.address, a.key, f.first_day FROM addresses a LEFT JOIN account_first_days f ON f.id = a.id ORDER BY a.address)
    TO ${literalPathSql(path.join(night, ACCOUNTS_FILE))} (FORMAT parquet)`);
  await db.run(`
    COPY (SELECT * REPLACE (CAST(exact_total AS DECIMAL(38,0)) AS exact_total) FROM (${POINTS_TOTALS_SQL}) ORDER BY season, address)
    TO ${literalPathSql(path.join(night, POINTS_TOTALS_FILE))} (FORMAT parquet)`);
}

/** The last day a segmented table's rows of the night may hold: the last closed day, or a balance row's later day. */
async function latestDayOf(context: StageContext, table: PreparedTable, last: number): Promise<number> {
  if (table.name !== 'balance_rows') return last;
  const [{ latest } = { latest: null }] = await context.db.rows<{ latest: number | null }>(
    `SELECT ${dayOfInstantSql('max(ts)')} AS latest FROM balance_rows`,
  );
  return Math.max(last, latest ?? last);
}

/**
 * Shard K's segments of the previous night that hold days before `from`, for each segmented
 * table: a segment wholly before it is linked as it is (its sha256 known from the previous night's
 * facts, checked whole when that night was opened); one that reaches `from` is cut there. Beyond
 * MAX_SEGMENTS, all but the oldest are merged into one. Rewritten segments of the points
 * histories keep the rows of today's participants only.
 */
async function reuseSegments(
  context: StageContext,
  at: { previousNight: string; from: number; index: number; shards: number; folder: string; night: string },
): Promise<ShardSegments> {
  const { previousNight, from, index, shards, folder } = at;
  const previous = path.join(previousNight, preparedFolderName({ index, count: shards }));
  const facts = await readPreparedFacts(previous);
  // Prepared into the previous night's own folder (`--out` is `--since`), whose files go once this night is in place.
  const inPlace = path.resolve(previousNight) === path.dirname(at.night);
  const reused: ShardSegments = { lists: { balance_rows: [], points_history_days: [] }, hashes: {} };
  for (const table of PREPARED_TABLES) {
    if (!table.segmented) continue;
    const name = table.name as SegmentedTableName;
    reused.lists[name] = await reuseTableSegments(context, {
      table,
      previous,
      facts,
      from,
      index,
      shards,
      folder,
      inPlace,
      hashes: reused.hashes,
    });
  }
  return reused;
}

async function reuseTableSegments(
  context: StageContext,
  at: {
    table: PreparedTable;
    previous: string;
    facts: PreparedFacts;
    from: number;
    index: number;
    shards: number;
    folder: string;
    inPlace: boolean;
    hashes: Record<string, string>;
  },
): Promise<Segment[]> {
  const { table, previous, facts, from, index, shards, folder } = at;
  const older = facts.segments[table.name as SegmentedTableName].filter((segment) => segment.from < from);
  const groups: Segment[][] = older.length + 1 > MAX_SEGMENTS ? [[older[0]!], older.slice(1)] : older.map((segment) => [segment]);
  const participantsOnly =
    table.name === 'points_history_days'
      ? ` AND wallet IN (SELECT wallet FROM points_history_wallets WHERE ${shardNumberSql(shards, 'address')} = ${index})`
      : '';
  const list: Segment[] = [];
  for (const group of groups) {
    const name = segmentFile(table, list.length + 1);
    const destination = path.join(folder, name);
    const to = Math.min(Math.max(...group.map((segment) => segment.to)), from - 1);
    if (group.length === 1 && group[0]!.to < from) {
      await reuseFile(path.join(previous, group[0]!.file), destination, at.inPlace);
      at.hashes[name] = facts.files[group[0]!.file]!;
    } else {
      const sources = group.map((segment) => literalPathSql(path.join(previous, segment.file))).join(', ');
      await context.db.run(`
        COPY (SELECT ${storedNamesSql(table)} FROM read_parquet([${sources}]) WHERE ${table.segmented!.before(from)}${participantsOnly})
        TO ${literalPathSql(destination)} (FORMAT parquet)`);
    }
    list.push({ file: name, from: group[0]!.from, to });
  }
  return list;
}

/**
 * Why the night must be full, or null: a wallet-season that became a participant tonight (a key
 * the previous night did not give) with days before `from` has no rows to reuse, and its rank on
 * those days needs every wallet's totals of those days, which an incremental night does not
 * compute (rare: its total was at most 0 on the previous night's day A, and is above 0 now).
 * Asked before anything is written: a full night starts from nothing.
 */
async function joinedWithEarlierDays(context: StageContext, from: number, nextKey: number): Promise<string | null> {
  const [{ joined } = { joined: 0 }] = await context.db.rows<{ joined: number }>(`
    SELECT count(*)::INTEGER AS joined FROM points_history_wallets w JOIN history_wallets h ON h.wallet = w.wallet
    WHERE w.wallet >= ${nextKey} AND h.start_day > h.first_day`);
  return joined > 0
    ? `${countOf(joined, 'wallet-season')} became participants with days before ${dayText(from)}, whose ranks need the whole history`
    : null;
}

/**
 * A segment kept as it is. Into the previous night's own folder, a hard link (its bytes are not
 * written again, and the previous night's name for it goes when this night moves into place);
 * into another folder, a copy, so that the two nights never share a file (an edit of one would
 * alter the other).
 */
async function reuseFile(source: string, destination: string, inPlace: boolean): Promise<void> {
  if (inPlace) {
    try {
      await fsp.link(source, destination);
      return;
    } catch {
      // A file system without hard links: copied below.
    }
  }
  await fsp.copyFile(source, destination, fs.constants.COPYFILE_FICLONE);
}

/**
 * One partition of a partitioned table as one file: DuckDB writes `shard=K/data_0.parquet` (more
 * files when a partition is large); a partition with no rows gets an empty file of the same columns.
 */
async function gatherShard(context: StageContext, table: PreparedTable, partition: string, destination: string): Promise<void> {
  const files = (await fsp.readdir(partition).catch(() => [] as string[])).filter((name) => name.endsWith('.parquet'));
  if (files.length === 1) {
    await fsp.rename(path.join(partition, files[0]!), destination);
    return;
  }
  const source =
    files.length === 0
      ? `(SELECT ${storedColumnsSql(table)} FROM ${table.name} WHERE false)`
      : `(SELECT ${storedNamesSql(table)} FROM read_parquet([${files.map((name) => literalPathSql(path.join(partition, name))).join(', ')}]))`;
  await context.db.run(`COPY ${source} TO ${literalPathSql(destination)} (FORMAT parquet)`);
}

/** The night's tables must have the types the folder declares: the shard's side runs its SQL on them. */
async function checkTypes(context: StageContext): Promise<void> {
  for (const table of PREPARED_TABLES) {
    const described = await context.db.rows<{ column_name: string; column_type: string }>(
      `SELECT column_name, column_type FROM (DESCRIBE ${table.name})`,
    );
    const got = described.map((row) => `${row.column_name} ${row.column_type}`).join(', ');
    const want = table.columns.map(([name, type]) => `${name} ${type}`).join(', ');
    if (got !== want)
      throw new Error(
        `table ${table.name} is (${got}), but a prepared folder declares (${want}): build/prepared-folder.ts must follow the night's tables`,
      );
  }
}
