// Entry of the build's worker threads: the module the pool names by its source
// (`./document-thread.ts`, in workerData).
import { workerData } from 'node:worker_threads';
import { importThreadModule } from '../../core/thread-module.js';

await importThreadModule(new URL(workerData.module, import.meta.url));
