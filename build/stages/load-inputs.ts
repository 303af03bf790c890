/** Night: the checked exports into the normalised tables every later stage reads (build/input/load.ts). */
import { loadInputs as loadInputTables } from '../input/load.ts';
import { defineStage } from './stage.ts';
import { INPUT_VIEWS } from './read-inputs.ts';
import { DISTINCT_ADDRESS_TABLES } from './check-values.ts';

export const loadInputs = defineStage({
  name: 'load inputs',
  side: 'night',
  reads: [...INPUT_VIEWS, ...DISTINCT_ADDRESS_TABLES],
  writes: [
    'token_names',
    'addresses',
    'venue_b_accounts',
    'balance_address_ids',
    'tokens',
    'balance_written',
    'balance_rows',
    'every_balance_row',
    'repeated_balance_keys',
    'repeated_balance_rows',
    'prices',
    'multipliers',
    'seasons',
    'points',
    ...DISTINCT_ADDRESS_TABLES,
  ],
  drops: DISTINCT_ADDRESS_TABLES,
  needs: ['inputFiles'],
  makes: [],
  async run(context, { inputFiles }) {
    await loadInputTables(context.db, inputFiles, context.config.shard);
    return {};
  },
});
