/**
 * Shard, `build --prepared` only: the tables and facts of a folder `prepare` wrote, each file read
 * through the descriptor that was hashed when the folder was opened (build/prepared-folder.ts).
 */
import { loadedColumnsSql, PREPARED_TABLE_NAMES, PREPARED_TABLES } from '../prepared-folder.ts';
import type { Stage } from './stage.ts';
import { literalPathSql } from '../database.ts';

export const loadPrepared: Stage = {
  name: 'load prepared',
  side: 'shard',
  reads: [],
  writes: PREPARED_TABLE_NAMES,
  when: (context) => context.mode.kind === 'prepared',
  async run(context) {
    if (context.mode.kind !== 'prepared') return;
    const prepared = context.mode.folder;
    for (const table of PREPARED_TABLES) {
      await context.db.run(`CREATE TABLE ${table.name} AS SELECT ${loadedColumnsSql(table)} FROM read_parquet(${literalPathSql(prepared.readPaths.get(table.name)!)})`);
    }
    const { facts } = prepared;
    context.values.dailyAsOf = facts.dailyAsOf;
    context.values.exampleWallet = facts.exampleWallet;
    context.values.leaderboards = facts.leaderboards;
    context.values.seasonsIndex = facts.seasonsIndex;
    const bySeason = new Map(Object.entries(facts.participantsByDay).map(([season, counts]) => [Number(season), counts]));
    context.values.participantsByDay = new Map([[facts.shard.index, bySeason]]);
  },
};
