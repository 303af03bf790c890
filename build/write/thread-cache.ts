/**
 * Writing threads kept between builds of one process. A thread starts by loading its modules (a
 * V8 isolate, and TypeScript through tsx in the repository): about 0.3 to 0.6 CPU-s each, more
 * than a small build's own work. A caller that runs many builds in one process (the test suites,
 * a long-lived service) passes one cache to every build; the CLI builds once per process and
 * passes none, so its threads end with their build. A thread goes back only from a build that
 * did not fail, emptied of that build's state; idle, it keeps no process alive.
 */
import type { Worker } from 'node:worker_threads';

export class ThreadCache {
  private readonly idle = new Map<string, Worker[]>();

  /** An idle thread running `module`, if there is one. */
  take(module: string): Worker | undefined {
    const worker = this.idle.get(module)?.pop();
    if (!worker) return undefined;
    worker.removeAllListeners('error');
    worker.ref();
    return worker;
  }

  /** A healthy thread whose build is done; `reset` already posted to it. */
  give(module: string, worker: Worker): void {
    worker.removeAllListeners('message');
    worker.removeAllListeners('error');
    // A thread that fails while idle is dropped; the next build starts a new one.
    worker.on('error', () => this.drop(module, worker));
    worker.unref();
    const list = this.idle.get(module) ?? [];
    list.push(worker);
    this.idle.set(module, list);
  }

  /** How many threads are idle. */
  get size(): number {
    return [...this.idle.values()].reduce((sum, list) => sum + list.length, 0);
  }

  /** Stops every idle thread. */
  async close(): Promise<void> {
    const workers = [...this.idle.values()].flat();
    this.idle.clear();
    await Promise.all(workers.map((worker) => worker.terminate()));
  }

  private drop(module: string, worker: Worker): void {
    const list = this.idle.get(module) ?? [];
    const at = list.indexOf(worker);
    if (at >= 0) list.splice(at, 1);
  }
}
