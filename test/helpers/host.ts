/**
 * The hosts a browser test runs the explorer against, started over real HTTP on a free loopback
 * port. Every runtime that serves a tree belongs here, so that a browser suite covers each one
 * by adding it to HOST_RUNTIMES.
 */
import { startPreviewServer } from '../../server/index.ts';

export type Runtime = 'node' | 'workerd';

/** The runtimes this branch can start (the Worker adapter is not part of it yet). */
export const HOST_RUNTIMES: Runtime[] = ['node'];

export interface RunningHost {
  url: string;
  close(): Promise<void>;
}

export async function startHost(runtime: Runtime, dir: string): Promise<RunningHost> {
  switch (runtime) {
    case 'node': {
      const running = await startPreviewServer({ dir, port: 0, host: '127.0.0.1' });
      return { url: running.url, close: () => running.close() };
    }
    case 'workerd':
      throw new Error('startHost: the workerd runtime needs the Worker adapter, which this branch does not have');
  }
}
