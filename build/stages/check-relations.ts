/**
 * Night: the rules across rows and files on the loaded tables, then the inputs against the build's
 * settings (--now, empty exports) (build/input/check.ts). prepare reads the extent of the events
 * off its digests, which cover every row, whichever rows it loaded (a night kept for the next one
 has them).
 */
import { checkInputRelations } from '../input/check.ts';
import { defineStage } from './stage.ts';
import { INPUT_VIEWS } from './read-inputs.ts';

export const checkRelations = defineStage({
  name: 'check relations',
  side: 'night',
  reads: [
    'repeated_balance_rows',
    'addresses',
    'token_names',
    'checked_balance_rows',
    'tokens',
    'prices',
    'venue_b_accounts',
    'seasons',
    'points',
    'multipliers',
    'input_days',
    ...INPUT_VIEWS,
  ],
  writes: [],
  needs: ['inputFiles', 'forNextNight'],
  makes: [],
  async run(context, { inputFiles, forNextNight }) {
    await checkInputRelations(context.db, inputFiles, context.config, forNextNight ? 'input_days' : 'tables');
    return {};
  },
});
