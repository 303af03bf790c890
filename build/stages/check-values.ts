/** Night: every value of every column against its rule, on the files as read (build/input/check.ts). */
import { checkInputValues } from '../input/check.ts';
import { defineStage } from './stage.ts';
import { INPUT_VIEWS } from './read-inputs.ts';

/** The distinct values of each address column, with their row counts: the load numbers addresses from them. */
export const DISTINCT_ADDRESS_TABLES = [
  'distinct_balances_address',
  'distinct_venue_b_accounts_account',
  'distinct_venue_b_accounts_owner',
  'distinct_points_address',
];

export const checkValues = defineStage({
  name: 'check values',
  side: 'night',
  reads: INPUT_VIEWS,
  writes: DISTINCT_ADDRESS_TABLES,
  needs: ['inputFiles'],
  makes: [],
  async run(context, { inputFiles }) {
    await checkInputValues(context.db, inputFiles);
    return {};
  },
});
