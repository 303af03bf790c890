/**
 * Night: the checked exports into the normalised tables every later stage reads (build/input/load.ts):
 * every row in a build and a full night (whose balances are digested as they load), the rows of
 * the days it computes in an incremental night, with the previous night's accounts and balance
 * rows for the days before (docs/incremental-nights.md).
 */
import path from 'node:path';
import { loadInputs as loadInputTables, WHOLE, type LoadScope } from '../input/load.ts';
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
  needs: ['inputFiles', 'resume'],
  makes: [],
  async run(context, { inputFiles, resume }) {
    await loadInputTables(context.db, inputFiles, context.config.shard, await loadScope(context, resume));
    return {};
  },
});

/** What the load reads: every row (and in prepare's full night, digests the balances), or an incremental night's days. */
async function loadScope(context: StageContext, resume: StageValues['resume']): Promise<LoadScope> {
  if (context.mode.kind !== 'prepare') return WHOLE;
  if (resume === null) return { kind: 'whole', digest: true };
  const { shards } = context.mode;
  const table = PREPARED_TABLES.find((candidate) => candidate.name === 'balance_rows')!;
  const segments: string[] = [];
  for (let index = 1; index <= shards; index++) {
    const folder = path.join(resume.previousNight, preparedFolderName({ index, count: shards }));
    const facts = await readPreparedFacts(folder);
    for (const segment of facts.segments.balance_rows) segments.push(literalPathSql(path.join(folder, segment.file)));
  }
  return {
    kind: 'incremental',
    from: resume.from,
    pointsFrom: resume.carriedTotals ? resume.from : null,
    previous: {
      accounts: `SELECT address, key, first_day FROM read_parquet(${literalPathSql(path.join(resume.previousNight, ACCOUNTS_FILE))})`,
      // Every shard folder holds a segment at least (an empty file for a shard without rows).
      balanceRows: `SELECT ${loadedColumnsSql(table)} FROM read_parquet([${segments.join(', ')}])`,
      nextAccountKey: resume.record.nextAccountKey,
    },
  };
}
