/**
 * `publish` figures (run: node --import tsx bench/publish.ts --first DIR [--second DIR] [--store DIR]):
 * publishes the first tree, then the second (the next night) if given, to a local S3-protocol server
 * (s3rver in a child process, storing in --store, default a folder under /dev/shm) through a
 * proxy that counts the requests, and prints per night: write requests (what R2 bills as class A,
 * S3 as PUT), bytes sent, bytes the version stores, wall and CPU seconds, and what the night's
 * writes and a month of the version's storage cost on R2 and S3; then the process's peak RSS and
 * one JSON line.
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
import { BUCKET, nightBound, S3_CREDENTIALS, startFaultyProxy, startS3Server, writeRequests } from '../test/helpers/s3-server.ts';

/** List prices (November 2026): per million write requests, per GB-month stored. */
const PRICES = { r2: { writes: 4.5, gbMonth: 0.015 }, s3: { writes: 5, gbMonth: 0.023 } };

const { values } = parseArgs({
  options: {
    first: { type: 'string' },
    second: { type: 'string' },
    store: { type: 'string' },
  },
});
if (!values.first) {
  process.stderr.write('usage: node --import tsx bench/publish.ts --first TREE [--second TREE] [--store DIR]\n');
  process.exit(2);
}
Object.assign(process.env, S3_CREDENTIALS);
const store = values.store ?? fs.mkdtempSync(path.join(fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'ws-bench-s3-'));
const server = await startS3Server(store);
const proxy = await startFaultyProxy(server.endpoint, () => 'forward');
const client = await createStorageClient({ endpoint: proxy.endpoint, maxAttempts: 8, concurrency: 32 });
const location = parseLocation(`s3://${BUCKET}/bench`);
const figures: Record<string, unknown>[] = [];
try {
  for (const [night, dir] of [
    ['first', values.first],
    ['second', values.second],
  ] as const) {
    if (dir === undefined) continue;
    proxy.requests.length = 0;
    const cpuBefore = process.cpuUsage();
    const summary: PublishSummary = await publishTree({ dir, location, client, progress: new Progress('lines') });
    const cpu = process.cpuUsage(cpuBefore);
    const cpuSeconds = (cpu.user + cpu.system) / 1e6;
    const writes = writeRequests(proxy.requests).length;
    const sent = writeRequests(proxy.requests).reduce((sum, request) => sum + request.bytes, 0);
    const stored = summary.stage!.pack.storedBytes;
    const gb = stored / 1e9;
    const price = (which: keyof typeof PRICES) =>
      `$${((writes / 1e6) * PRICES[which].writes).toFixed(6)} writes, $${(gb * PRICES[which].gbMonth).toFixed(4)}/month stored`;
    process.stdout.write(
      `${night} night (${summary.version}): ${summary.seconds.toFixed(1)} s wall, ${cpuSeconds.toFixed(1)} CPU-s in publish; ` +
        `${summary.files} files (${formatBytes(summary.stage!.pack.rawBytes)} raw) in ${summary.stage!.record.pack.archives} archives; ` +
        `${writes} write requests (bound ${nightBound(proxy.requests)}), ${proxy.requests.length} requests in all, ${formatBytes(sent)} sent, ${formatBytes(stored)} stored; ` +
        `R2 ${price('r2')}; S3 ${price('s3')}; index window ${summary.stage!.record.pack.window} slots\n`,
    );
    figures.push({
      night,
      version: summary.version,
      seconds: summary.seconds,
      cpuSeconds,
      files: summary.files,
      rawBytes: summary.stage!.pack.rawBytes,
      writes,
      requests: proxy.requests.length,
      sentBytes: sent,
      storedBytes: stored,
      pack: summary.stage!.record.pack,
    });
  }
} finally {
  client.destroy();
  await proxy.close();
  await server.close();
  if (!values.store) fs.rmSync(store, { recursive: true, force: true });
}
// The publish process's own peak (s3rver, a child, apart).
const peakRssMB = Math.round(process.resourceUsage().maxRSS / 1024);
process.stdout.write(`publish process peak RSS: ${peakRssMB} MB\n${JSON.stringify({ nights: figures, peakRssMB })}\n`);
