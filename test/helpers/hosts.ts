/**
 * The hosts of the request handler, started the way `wallet-snapshot serve` starts them, so that
 * one HTTP suite runs against every runtime: the Node server, the Cloudflare Worker in workerd
 * (through Miniflare, with its R2 bucket loaded from the tree), and the Worker over what
 * `publish` wrote to a real S3-protocol server (s3rver), read back into its bucket as stored.
 */
import { startPreviewServer } from '../../server/index.ts';
import { startWorkerd, startWorkerdOverObjects, type StoredObject } from '../../preview/workerd.ts';
import { runPublish } from '../../publish/index.ts';
import { createStorageClient } from '../../publish/storage.ts';
import { parseLocation, pointerKey } from '../../publish/location.ts';
import { readPublishedVersion } from '../../publish/read-version.ts';
import { BUCKET, S3_CREDENTIALS, startS3Server } from './s3-server.ts';

export type Runtime = 'node' | 'workerd' | 'published';
/** The runtimes `wallet-snapshot serve` offers. */
export const RUNTIMES: Runtime[] = ['node', 'workerd'];

export interface Host {
  url: string;
  /** Resolves once a tree rebuilt in the folder is served (at once on Node). */
  loaded(): Promise<void>;
  /** The published runtime: each object put into the Worker's bucket, by key, with its metadata. */
  stored?: Map<string, Record<string, string>>;
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

/** `publish --dir DIR` to s3rver on loopback, then the Worker over the objects as published. */
async function startPublishedWorker(dir: string): Promise<Host> {
  Object.assign(process.env, S3_CREDENTIALS);
  const s3 = await startS3Server();
  try {
    const to = `s3://${BUCKET}/nightly`;
    await runPublish({ dir, to, endpoint: s3.endpoint, concurrency: 16, maxAttempts: 3, progress: 'quiet' });
    const client = await createStorageClient({ endpoint: s3.endpoint, maxAttempts: 3, concurrency: 16 });
    const location = parseLocation(to);
    const stored = new Map<string, Record<string, string>>();
    async function* objects(): AsyncGenerator<StoredObject> {
      for await (const object of readPublishedVersion(client, location)) {
        // The Worker reads the bucket's root: the prefix is the publish's, not the Worker's.
        const key = object.key.slice('nightly/'.length);
        stored.set(key, object.customMetadata);
        yield { ...object, key };
      }
      const { GetObjectCommand } = await import('@aws-sdk/client-s3');
      const pointer = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: pointerKey(location) }));
      yield { key: 'live.json', body: await pointer.Body!.transformToByteArray(), httpMetadata: { contentType: pointer.ContentType }, customMetadata: {} };
    }
    const worker = await startWorkerdOverObjects(objects(), { port: 0, host: '127.0.0.1' });
    client.destroy();
    return { ...worker, stored, close: async () => {
      await worker.close();
      await s3.close();
    } };
  } catch (error) {
    await s3.close();
    throw error;
  }
}
