// Entry of the build's worker threads: like bin/wallet-snapshot.js, load TypeScript through tsx,
// then the thread's own module (named by the pool that starts it).
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(new URL(workerData.module, import.meta.url).href);
