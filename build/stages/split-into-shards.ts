/**
 * Night, `prepare` only: the night cut into one folder per shard (build/prepared-folder.ts): each
 * shard's rows of the tables its build reads, written in one pass per table (DuckDB's partitioned
 * Parquet writer), the small shared tables copied into every folder, and the night's facts.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { literalPathSql } from '../database.ts';
import { shardNumberSql } from '../compute/shard-filter.ts';
import {
  PREPARED_FORMAT,
  PREPARED_TABLES,
  preparedFolderName,
  sha256OfFile,
  storedColumnsSql,
  PREPARED_TABLE_NAMES,
  tableFile,
  writePreparedFacts,
  type PreparedTable,
} from '../prepared-folder.ts';
import { need, type Stage, type StageContext } from './stage.ts';

export const splitIntoShards: Stage = {
  name: 'split into shards',
  side: 'night',
  reads: [...PREPARED_TABLE_NAMES, 'addresses', 'venue_b_accounts'],
  writes: ['address_shards'],
  when: (context) => context.mode.kind === 'prepare',
  async run(context) {
    if (context.mode.kind !== 'prepare') return;
    const { shards, night } = context.mode;
    const { db } = context;
    await checkTypes(context);
    const shardOf = (address: string) => shardNumberSql(shards, address);
    await db.run(`CREATE TABLE address_shards AS SELECT id, ${shardOf('address')} AS shard FROM addresses`);
    const folders = Array.from({ length: shards }, (_, i) => path.join(night, preparedFolderName({ index: i + 1, count: shards })));
    for (const folder of folders) await fsp.mkdir(folder, { recursive: true });
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
      await db.run(`COPY (SELECT ${columns}, shard FROM (${table.cut(shardOf)})) TO ${literalPathSql(partitioned)} (FORMAT parquet, PARTITION_BY (shard))`);
      for (let index = 1; index <= shards; index++) await gatherShard(context, table, partitioned, index, folders[index - 1]!);
    }
    await fsp.rm(parts, { recursive: true, force: true });
    const inputs = await context.inputsDigest;
    for (let index = 1; index <= shards; index++) {
      const folder = folders[index - 1]!;
      const files: Record<string, string> = {};
      for (const table of PREPARED_TABLES) files[tableFile(table)] = await sha256OfFile(path.join(folder, tableFile(table)));
      await writePreparedFacts(folder, {
        format: PREPARED_FORMAT,
        shard: { index, count: shards },
        now: context.config.nowIso,
        lastClosedDay: context.config.lastClosedDay,
        inputs,
        dailyAsOf: context.values.dailyAsOf ?? null,
        exampleWallet: context.values.exampleWallet ?? null,
        leaderboards: need(context, 'leaderboards'),
        seasonsIndex: need(context, 'seasonsIndex'),
        participantsByDay: Object.fromEntries(need(context, 'participantsByDay').get(index) ?? []),
        files,
      });
    }
  },
};

/**
 * Shard K's part of a partitioned table as one file: DuckDB writes `shard=K/data_0.parquet` (more
 * files when a partition is large); a shard with no rows gets an empty file of the same columns.
 */
async function gatherShard(context: StageContext, table: PreparedTable, partitioned: string, index: number, folder: string): Promise<void> {
  const destination = path.join(folder, tableFile(table));
  const partition = path.join(partitioned, `shard=${index}`);
  const files = (await fsp.readdir(partition).catch(() => [] as string[])).filter((name) => name.endsWith('.parquet'));
  if (files.length === 1) {
    await fsp.rename(path.join(partition, files[0]!), destination);
    return;
  }
  const columns = storedColumnsSql(table);
  const source = files.length === 0
    ? `(SELECT ${columns} FROM ${table.name} WHERE false)`
    : `(SELECT ${columns} FROM read_parquet([${files.map((name) => literalPathSql(path.join(partition, name))).join(', ')}]))`;
  await context.db.run(`COPY ${source} TO ${literalPathSql(destination)} (FORMAT parquet)`);
}

/** The night's tables must have the types the folder declares: the shard's side runs its SQL on them. */
async function checkTypes(context: StageContext): Promise<void> {
  for (const table of PREPARED_TABLES) {
    const described = await context.db.rows<{ column_name: string; column_type: string }>(`SELECT column_name, column_type FROM (DESCRIBE ${table.name})`);
    const got = described.map((row) => `${row.column_name} ${row.column_type}`).join(', ');
    const want = table.columns.map(([name, type]) => `${name} ${type}`).join(', ');
    if (got !== want) throw new Error(`table ${table.name} is (${got}), but a prepared folder declares (${want}): build/prepared-folder.ts must follow the night's tables`);
  }
}
