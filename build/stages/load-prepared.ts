/**
 * Shard, `build --prepared` only: the tables and facts of a folder `prepare` wrote, each file read
 * through the descriptor that was hashed when the folder was opened (build/prepared-folder.ts).
 * The points histories' rows come keyed by wallet-season keys that last from night to night: here
 * each participant's key becomes its place in (address, season) order, the order of the documents,
 * and the segments' rows of wallet-seasons that are no longer participants are left behind. The
 * balance rows' accounts come as the addresses' lasting keys, which become tonight's ids (a
 * full night's keys are its ids already).
 */
import { loadedColumnsSql, PREPARED_TABLE_NAMES, PREPARED_TABLES } from '../prepared-folder.ts';
import { defineStage, type Made } from './stage.ts';
import { literalPathSql } from '../database.ts';

export const loadPrepared = defineStage({
  name: 'load prepared',
  side: 'shard',
  reads: [],
  writes: PREPARED_TABLE_NAMES,
  needs: ['preparedFolder'],
  makes: ['dailyAsOf', 'exampleWallet', 'leaderboards', 'seasonsIndex', 'participantsByDay', 'nightKind'],
  async run(
    context,
    { preparedFolder: prepared },
  ): Promise<Made<'dailyAsOf' | 'exampleWallet' | 'leaderboards' | 'seasonsIndex' | 'participantsByDay' | 'nightKind'>> {
    const files = (name: string) => `[${prepared.readPaths.get(name)!.map(literalPathSql).join(', ')}]`;
    for (const table of PREPARED_TABLES) {
      if (table.name === 'points_history_wallets' || table.name === 'points_history_days' || table.name === 'balance_rows') continue;
      await context.db.run(`CREATE TABLE ${table.name} AS SELECT ${loadedColumnsSql(table)} FROM read_parquet(${files(table.name)})`);
    }
    const balances = PREPARED_TABLES.find((table) => table.name === 'balance_rows')!;
    const [{ keyed } = { keyed: false }] = await context.db.rows<{ keyed: boolean }>(
      'SELECT coalesce(bool_or(key <> id), false) AS keyed FROM addresses',
    );
    await context.db.run(
      keyed
        ? `CREATE TABLE balance_rows AS SELECT b.* REPLACE (a.id AS account)
           FROM (SELECT ${loadedColumnsSql(balances)} FROM read_parquet(${files(balances.name)})) b JOIN addresses a ON a.key = b.account`
        : `CREATE TABLE balance_rows AS SELECT ${loadedColumnsSql(balances)} FROM read_parquet(${files(balances.name)})`,
    );
    const [wallets, days] = ['points_history_wallets', 'points_history_days'].map(
      (name) => PREPARED_TABLES.find((table) => table.name === name)!,
    );
    await context.db.run(`
      CREATE TABLE points_history_wallets AS
      SELECT (row_number() OVER (ORDER BY address, season))::INTEGER AS wallet, key, address, season
      FROM (SELECT ${loadedColumnsSql(wallets!)} FROM read_parquet(${files(wallets!.name)})) AS keyed (key, address, season)`);
    await context.db.run(`
      CREATE TABLE points_history_days AS
      SELECT w.wallet, d.day, d.points, d.total_points, d.rank
      FROM (SELECT ${loadedColumnsSql(days!)} FROM read_parquet(${files(days!.name)})) d
      JOIN points_history_wallets w ON w.key = d.wallet`);
    await context.db.run('ALTER TABLE points_history_wallets DROP COLUMN key');
    const { facts } = prepared;
    const bySeason = new Map(Object.entries(facts.participantsByDay).map(([season, counts]) => [Number(season), counts]));
    return {
      dailyAsOf: facts.dailyAsOf,
      exampleWallet: facts.exampleWallet,
      leaderboards: facts.leaderboards,
      seasonsIndex: facts.seasonsIndex,
      participantsByDay: new Map([[facts.shard.index, bySeason]]),
      nightKind: facts.nightKind,
    };
  },
});
