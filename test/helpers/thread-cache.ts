/**
 * The writing threads a test process keeps between its builds (the keeper build/write/thread-cache.ts
 * describes, passed to `buildSnapshot`): starting a build's two threads cost about a CPU-second,
 * more than a fixture's build. Idle, a thread keeps no process alive.
 */
import type { Worker } from 'node:worker_threads';
import type { ThreadCache as BuildThreadCache } from '../../build/write/thread-cache.ts';

export class ThreadCache implements BuildThreadCache {
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
