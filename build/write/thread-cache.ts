/**
 * Writing threads a caller keeps between the builds of one process, passed to `buildSnapshot`
 * (build/index.ts). A thread starts by loading its modules (a V8 isolate, and TypeScript through
 * tsx in the repository): about 0.3 to 0.6 CPU-s each, more than a small build's own work. The CLI
 * builds once per process and passes none, so its threads end with their build; the test suites,
 * which run many small builds in one process, pass the keeper of test/helpers/thread-cache.ts.
 * A build takes a thread from the keeper before it starts one, and gives back only the threads of
 * a build that did not fail, emptied of that build's state (a `reset` already posted to them).
 */
import type { Worker } from 'node:worker_threads';

export interface ThreadCache {
  /** An idle thread running `module`, if there is one, ready to be used (referenced, with no listeners). */
  take(module: string): Worker | undefined;
  /** A healthy thread whose build is done; `reset` already posted to it. */
  give(module: string, worker: Worker): void;
}
