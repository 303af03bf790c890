/**
 * Night: each export opened as a view `input_<table>` once its files, columns and types are found
 * (build/input/read.ts), and the night's digest table `input_days`, empty, which the stage that
 * reads every row fills (build/compute/input-days.ts: find changed days in an incremental night,
 * check values and load inputs in a full one; a build from the exports leaves it empty).
 */
import { readInputs as readInputFiles } from '../input/read.ts';
import { INPUT_FILES } from '../input/contract.ts';
import { INPUT_DAYS_TABLE } from '../compute/input-days.ts';
import { defineStage } from './stage.ts';

export const INPUT_VIEWS = INPUT_FILES.map((file) => `input_${file.table}`);

export const readInputs = defineStage({
  name: 'read inputs',
  side: 'night',
  reads: [],
  writes: [...INPUT_VIEWS, 'input_days'],
  needs: ['inputs'],
  makes: ['inputFiles'],
  async run(context, { inputs }) {
    const inputFiles = await readInputFiles(context.db, inputs, context.faults);
    await context.db.run(INPUT_DAYS_TABLE);
    return { inputFiles };
  },
});
