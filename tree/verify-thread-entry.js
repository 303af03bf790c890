// Entry of verify's threads (piscina): the task function of verify-thread.ts, handed to piscina.
import { importThreadModule } from '../core/thread-module.js';

const task = await importThreadModule(new URL('./verify-thread.ts', import.meta.url));

export default task.checkBatch;
