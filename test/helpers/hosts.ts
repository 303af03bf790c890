/**
 * The hosts of the request handler, started the way `wallet-snapshot serve` starts them, so that
 * one HTTP suite runs against every runtime: the Node server and the Cloudflare Worker in workerd
 * (through Miniflare, with its R2 bucket loaded from the tree).
 */
import { startPreviewServer } from '../../server/index.ts';
import { startWorkerd } from '../../server/workerd.ts';

export type Runtime = 'node' | 'workerd';
export const RUNTIMES: Runtime[] = ['node', 'workerd'];

export interface Host {
  url: string;
  /** Resolves once a tree rebuilt in the folder is served (at once on Node). */
  loaded(): Promise<void>;
  close(): Promise<void>;
}

export async function startHost(runtime: Runtime, dir: string): Promise<Host> {
  if (runtime === 'workerd') return startWorkerd({ dir, port: 0, host: '127.0.0.1' });
  const running = await startPreviewServer({ dir, port: 0, host: '127.0.0.1' });
  return { url: running.url, loaded: async () => {}, close: () => running.close() };
}

export async function withHost<T>(runtime: Runtime, dir: string, body: (base: string, host: Host) => Promise<T>): Promise<T> {
  const host = await startHost(runtime, dir);
  try {
    return await body(host.url, host);
  } finally {
    await host.close();
  }
}
