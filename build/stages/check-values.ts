/**
 * Night: every value of every column against its rule, on the files as read (build/input/check.ts):
 * every row in a build and a full night (which digests every row in the same scans:
 * build/compute/input-days.ts), the rows of the days it computes in an incremental night.
 */
import { checkInputValues, EVERY_ROW, type ValueCheckScope } from '../input/check.ts';
import { defineStage, type StageContext, type StageValues } from './stage.ts';
import { INPUT_VIEWS } from './read-inputs.ts';

/** The distinct values of each address column, with their row counts: the load numbers addresses from them. */
export const DISTINCT_ADDRESS_TABLES = [
  'distinct_balances_address',
  'distinct_venue_b_accounts_account',
  'distinct_venue_b_accounts_owner',
  'distinct_points_address',
];

/**
 * Which rows a night reads whole: a build reads every row; `prepare` every row and digests it
 * (a full night), or the days from its first recomputed one (an incremental night).
 */
export function valueCheckScope(context: StageContext, resume: StageValues['resume']): ValueCheckScope {
  if (context.mode.kind !== 'prepare') return EVERY_ROW;
  return resume === null
    ? { fromDay: null, digest: true, firstSeconds: true }
    : { fromDay: resume.from, digest: false, firstSeconds: true };
}

export const checkValues = defineStage({
  name: 'check values',
  side: 'night',
  reads: [...INPUT_VIEWS, 'input_days'],
  writes: [...DISTINCT_ADDRESS_TABLES, 'input_days'],
  needs: ['inputFiles', 'resume'],
  makes: [],
  async run(context, { inputFiles, resume }) {
    await checkInputValues(context.db, inputFiles, valueCheckScope(context, resume));
    return {};
  },
});
