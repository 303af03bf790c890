// Entry of publish's tree-file threads (piscina): the task functions, handed to piscina.
import { importThreadModule } from '../core/thread-module.js';

const task = await importThreadModule(new URL('./tree-file-task.ts', import.meta.url));

export default task.runTreeFileTask;
export const list = task.runListTask;
export const check = task.runCheckTask;
