/**
 * `npm run bench:publish`-style figures for `publish` (run: node --import tsx bench/publish.ts
 * --first DIR --second DIR [--store DIR] [--concurrency N]): publishes the first tree, then the
 * second (the next night) to a local S3-protocol server (s3rver in a child process, storing in
 * --store, default a folder under /dev/shm), and prints, per night, objects and bytes uploaded
 * (uncompressed and as sent), copied and skipped, the closed months' blobs uploaded and found
 * stored, wall and CPU seconds, then one JSON line.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Progress } from '../core/progress.ts';
import { publishTree, type PublishSummary } from '../publish/publish-tree.ts';
import { createStorageClient } from '../publish/storage.ts';
import { parseLocation } from '../publish/location.ts';
import { formatBytes } from '../core/format.ts';
import { BUCKET, S3_CREDENTIALS, startS3Server } from '../test/helpers/s3-server.ts';

const { values } = parseArgs({
  options: {
    first: { type: 'string' },
    second: { type: 'string' },
    store: { type: 'string' },
    concurrency: { type: 'string', default: '32' },
  },
});
if (!values.first || !values.second) {
  process.stderr.write('usage: node --import tsx bench/publish.ts --first TREE --second TREE [--store DIR] [--concurrency N]\n');
  process.exit(2);
}
Object.assign(process.env, S3_CREDENTIALS);
const store = values.store ?? fs.mkdtempSync(path.join(fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'ws-bench-s3-'));
const server = await startS3Server(store);
const client = await createStorageClient({ endpoint: server.endpoint, maxAttempts: 8, concurrency: Number(values.concurrency) });
const location = parseLocation(`s3://${BUCKET}/bench`);
const figures: Record<string, unknown>[] = [];
try {
  for (const [night, dir] of [['first', values.first], ['second', values.second]] as const) {
    const cpuBefore = process.cpuUsage();
    const summary: PublishSummary = await publishTree({ dir, location, client, concurrency: Number(values.concurrency), progress: new Progress('lines') });
    const cpu = process.cpuUsage(cpuBefore);
    const cpuSeconds = (cpu.user + cpu.system) / 1e6;
    process.stdout.write(
      `${night} night (${summary.version}): ${summary.seconds.toFixed(1)} s wall, ${cpuSeconds.toFixed(1)} CPU-s in publish; ` +
        `uploaded ${summary.uploaded.objects} objects (${formatBytes(summary.uploaded.rawBytes)} raw, ${formatBytes(summary.uploaded.sentBytes)} sent), ` +
        `copied ${summary.copied.objects} (${formatBytes(summary.copied.rawBytes)} raw), skipped ${summary.skipped.objects}; ` +
        `closed-month blobs: uploaded ${summary.blobs.uploaded.objects} (${formatBytes(summary.blobs.uploaded.rawBytes)} raw, ${formatBytes(summary.blobs.uploaded.sentBytes)} sent), ` +
        `stored already ${summary.blobs.stored.objects}; sent ${formatBytes(summary.uploaded.sentBytes + summary.blobs.uploaded.sentBytes)} in all\n`,
    );
    figures.push({ night, version: summary.version, seconds: summary.seconds, cpuSeconds, uploaded: summary.uploaded, copied: summary.copied, skipped: summary.skipped, blobs: summary.blobs });
  }
} finally {
  client.destroy();
  await server.close();
  if (!values.store) fs.rmSync(store, { recursive: true, force: true });
}
process.stdout.write(`${JSON.stringify({ concurrency: Number(values.concurrency), nights: figures })}\n`);
