/** Night: each export opened as a view `input_<table>` once its files, columns and types are found (build/input/read.ts). */
import { readInputs as readInputFiles } from '../input/read.ts';
import { INPUT_FILES } from '../input/contract.ts';
import { defineStage } from './stage.ts';

export const INPUT_VIEWS = INPUT_FILES.map((file) => `input_${file.table}`);

export const readInputs = defineStage({
  name: 'read inputs',
  side: 'night',
  reads: [],
  writes: INPUT_VIEWS,
  needs: [],
  makes: ['inputFiles'],
  async run(context) {
    return { inputFiles: await readInputFiles(context.db, context.inputs, context.faults) };
  },
});
