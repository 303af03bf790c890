/**
 * Night: every value of every column against its rule, on the files as read (build/input/check.ts):
 * every row in a build and a full night (which digests every row in the same scans:
 * build/compute/input-days.ts), the rows of the days it computes in an incremental night.
 */
import { checkInputValues, EVERY_ROW, type ValueCheckScope } from '../input/check.ts';
import { defineStage, type StageValues } from './stage.ts';
import { INPUT_VIEWS } from './read-inputs.ts';

/** The distinct values of each address column, with their row counts: the load numbers addresses from them. */
export const DISTINCT_ADDRESS_TABLES = [
  'distinct_balances_address',
  'distinct_venue_b_accounts_account',
  'distinct_venue_b_accounts_owner',
  'distinct_points_address',
];

/**
 * Which rows a night checks: the days from its first recomputed one (an incremental night, whose
 * rows find changed days digested); every row, digesting them for the next night (prepare's full
 * night); or every row (a build).
 */
function valueCheckScope(resume: StageValues['resume'], forNextNight: boolean): ValueCheckScope {
  if (resume !== null) return { fromDay: resume.from, digest: false, firstSeconds: true };
  return forNextNight ? { fromDay: null, digest: true, firstSeconds: true } : EVERY_ROW;
}

export const checkValues = defineStage({
  name: 'check values',
  side: 'night',
  reads: [...INPUT_VIEWS, 'input_days'],
  writes: [...DISTINCT_ADDRESS_TABLES, 'input_days'],
  needs: ['inputFiles', 'resume', 'forNextNight'],
  makes: [],
  async run(context, { inputFiles, resume, forNextNight }) {
    await checkInputValues(context.db, inputFiles, valueCheckScope(resume, forNextNight));
    return {};
  },
});
