/**
 * Night: the checked exports into the normalised tables every later stage reads (build/input/load.ts):
 * every row in a build and a full night (whose balances are digested as they load), the rows of
 * the days it computes in an incremental night, with the previous night's accounts and balance
 * rows for the days before (docs/incremental-nights.md).
 */
import path from 'node:path';
import { loadInputs as loadInputTables, type LoadScope, type NightBalanceRows, type StoredBalanceRows } from '../input/load.ts';
import { firstSecondOfDay } from '../compute/input-days.ts';
import { literalPathSql } from '../database.ts';
import { ACCOUNTS_FILE } from '../night-state.ts';
import { loadedColumnsSql, PREPARED_TABLES, preparedFolderName, readPreparedFacts } from '../prepared-folder.ts';
import { defineStage, type StageContext, type StageValues } from './stage.ts';
import { INPUT_VIEWS } from './read-inputs.ts';
import { DISTINCT_ADDRESS_TABLES } from './check-values.ts';

export const loadInputs = defineStage({
  name: 'load inputs',
  side: 'night',
  reads: [...INPUT_VIEWS, ...DISTINCT_ADDRESS_TABLES, 'input_days'],
  writes: [
    'token_names',
    'addresses',
    'venue_b_accounts',
    'balance_address_ids',
    'tokens',
    'balance_written',
    'balance_rows',
    'every_balance_row',
    'checked_balance_rows',
    'repeated_balance_keys',
    'repeated_balance_rows',
    'account_first_days',
    'prices',
    'multipliers',
    'seasons',
    'points',
    'input_days',
    ...DISTINCT_ADDRESS_TABLES,
  ],
  drops: DISTINCT_ADDRESS_TABLES,
  needs: ['inputFiles', 'resume', 'forNextNight'],
  makes: [],
  async run(context, { inputFiles, resume, forNextNight }) {
    await loadInputTables(context.db, inputFiles, context.config.shard, await loadScope(resume, forNextNight));
    return {};
  },
});

/** What the load reads: an incremental night's days, or every row (digesting the balances when the night is kept for the next one). */
async function loadScope(resume: StageValues['resume'], forNextNight: boolean): Promise<LoadScope> {
  if (resume === null) return { kind: 'whole', digest: forNextNight };
  return {
    kind: 'incremental',
    from: resume.from,
    pointsFrom: resume.carriedTotals ? resume.from : null,
    previous: {
      accounts: `SELECT address, key, first_day FROM read_parquet(${literalPathSql(path.join(resume.previousNight, ACCOUNTS_FILE))})`,
      balanceRows: await previousBalanceRows(resume),
      nextAccountKey: resume.record.nextAccountKey,
    },
  };
}

/** The previous night's balance rows, every shard folder's segments. */
async function previousBalanceRows(resume: NonNullable<StageValues['resume']>): Promise<StoredBalanceRows> {
  const shards = resume.record.shards;
  const table = PREPARED_TABLES.find((candidate) => candidate.name === 'balance_rows')!;
  const segments: string[] = [];
  for (let index = 1; index <= shards; index++) {
    const folder = path.join(resume.previousNight, preparedFolderName({ index, count: shards }));
    const facts = await readPreparedFacts(folder);
    for (const segment of facts.segments.balance_rows) segments.push(literalPathSql(path.join(folder, segment.file)));
  }
  // Every shard folder holds a segment at least (an empty file for a shard without rows).
  return { files: `read_parquet([${segments.join(', ')}])`, columns: (alias) => loadedColumnsSql(table, alias) };
}

/**
 * Where the night finds every balance row of the export for its queries over every wallet
 * (build/input/load.ts): an incremental night's are the previous night's of the days before its
 * first, and those it loaded; a build without a shard and prepare's full night load every row;
 * `build --shard` reads the others from the export.
 */
export async function nightBalanceRows(context: StageContext, resume: StageValues['resume']): Promise<NightBalanceRows> {
  if (resume !== null) return { previous: await previousBalanceRows(resume), before: firstSecondOfDay(resume.from) };
  return context.config.shard === null ? 'balance_rows' : 'export';
}
