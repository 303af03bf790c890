/**
 * The hosts of the request handler, started the way `wallet-snapshot serve` starts them, so that
 * one HTTP suite runs against every runtime: the Node server, the Cloudflare Worker in workerd
 * (through Miniflare, with its R2 bucket loaded from the tree), and the Worker over what
 * `publish` wrote to a real S3-protocol server (s3rver), copied into its bucket as stored
 * (`serve --runtime workerd --from`).
 */
import { startPreviewServer } from '../../server/index.ts';
import { startWorkerd, startWorkerdFromBucket } from '../../preview/workerd.ts';
import { runPublish } from '../../publish/index.ts';
import { BUCKET, S3_CREDENTIALS, startS3Server } from './s3-server.ts';

export type Runtime = 'node' | 'workerd' | 'published';
/** The runtimes `wallet-snapshot serve` offers. */
export const RUNTIMES: Runtime[] = ['node', 'workerd'];

export interface Host {
  url: string;
  /** Resolves once a tree rebuilt in the folder is served (at once on Node). */
  loaded(): Promise<void>;
  close(): Promise<void>;
}

export async function startHost(runtime: Runtime, dir: string): Promise<Host> {
  if (runtime === 'workerd') return startWorkerd({ dir, port: 0, host: '127.0.0.1' });
  if (runtime === 'published') return startPublishedWorker(dir);
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

/** `publish --dir DIR` to s3rver on loopback, then the Worker over what was published (`serve --from`). */
async function startPublishedWorker(dir: string): Promise<Host> {
  Object.assign(process.env, S3_CREDENTIALS);
  const s3 = await startS3Server();
  try {
    const to = `s3://${BUCKET}/nightly`;
    await runPublish({ dir, to, endpoint: s3.endpoint, concurrency: 16, maxAttempts: 3, progress: 'quiet' });
    const worker = await startWorkerdFromBucket({ from: to, endpoint: s3.endpoint, port: 0, host: '127.0.0.1' });
    return {
      ...worker,
      close: async () => {
        await worker.close();
        await s3.close();
      },
    };
  } catch (error) {
    await s3.close();
    throw error;
  }
}
