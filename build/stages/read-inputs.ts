/** Night: each export opened as a view `input_<table>` once its files, columns and types are found (build/input/read.ts). */
import { readInputs as readInputFiles } from '../input/read.ts';
import { INPUT_FILES } from '../input/contract.ts';
import type { Stage } from './stage.ts';

export const INPUT_VIEWS = INPUT_FILES.map((file) => `input_${file.table}`);

export const readInputs: Stage = {
  name: 'read inputs',
  side: 'night',
  reads: [],
  writes: INPUT_VIEWS,
  async run(context) {
    context.values.inputFiles = await readInputFiles(context.db, context.inputs);
  },
};
