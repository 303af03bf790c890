/**
 * The bench's dataset generator in a process of its own, so that its time, CPU and peak RSS are
 * measured like every other step: `node --import tsx bench/generate-dataset.ts JSON`, where JSON
 * holds the `DatasetOptions` (data/generate.ts) without the callback. Progress lines go to stderr.
 */
import { generateDataset, type DatasetOptions } from '../data/generate.ts';

const options = JSON.parse(process.argv[2]!) as DatasetOptions;
await generateDataset({ ...options, onProgress: (line) => process.stderr.write(`[generate] ${line}\n`) });
