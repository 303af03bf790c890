/**
 * Night: the rules across rows and files on the loaded tables, then the inputs against the build's
 * settings (--now, empty exports) (build/input/check.ts).
 */
import { checkInputRelations } from '../input/check.ts';
import { need, type Stage } from './stage.ts';

export const checkRelations: Stage = {
  name: 'check relations',
  side: 'night',
  reads: ['repeated_balance_rows', 'addresses', 'token_names', 'every_balance_row', 'tokens', 'prices', 'venue_b_accounts', 'seasons', 'points', 'multipliers', 'input_balances'],
  writes: [],
  async run(context) {
    await checkInputRelations(context.db, need(context, 'inputFiles'), context.config);
  },
};
