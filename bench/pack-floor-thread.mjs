// A thread of the pack floor (bench/pack-floor.ts): reads its files one after another and
// gzips (level 2) or hashes (sha256) each, timing the reads apart from the work. Plain JavaScript,
// so that the thread needs no TypeScript loader.
import crypto from 'node:crypto';
import fs from 'node:fs';
import zlib from 'node:zlib';
import { parentPort, workerData } from 'node:worker_threads';

const { files, work, level } = workerData;
let readSeconds = 0;
let workSeconds = 0;
let bytes = 0;
let stored = 0;
for (const file of files) {
  const started = performance.now();
  const content = fs.readFileSync(file);
  const read = performance.now();
  if (work === 'gzip') stored += zlib.gzipSync(content, { level }).length;
  else crypto.createHash('sha256').update(content).digest();
  workSeconds += (performance.now() - read) / 1000;
  readSeconds += (read - started) / 1000;
  bytes += content.length;
}
parentPort.postMessage({ readSeconds, workSeconds, bytes, stored });
