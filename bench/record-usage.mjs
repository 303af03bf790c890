// Loaded into every process the bench measures (`node --import ./bench/record-usage.mjs ...`):
// writes the process's own resource usage (CPU-seconds, peak RSS) as JSON to the file named by
// BENCH_USAGE_FILE when it exits, and also on SIGUSR2 when BENCH_USAGE_ON_SIGNAL is set (the
// bench asks a server that keeps running, e.g. s3rver, for its usage before and after each step).
// Plain JavaScript with no imports beyond Node's own, so that it loads before tsx and needs no
// /usr/bin/time on the machine.
import fs from 'node:fs';
import { isMainThread } from 'node:worker_threads';

const file = process.env.BENCH_USAGE_FILE;
if (file && isMainThread) {
  let sequence = 0;
  const write = (final) => {
    const usage = process.resourceUsage();
    const record = {
      sequence: ++sequence,
      final,
      pid: process.pid,
      userSeconds: usage.userCPUTime / 1e6,
      systemSeconds: usage.systemCPUTime / 1e6,
      peakRssBytes: usage.maxRSS * 1024,
    };
    // Written whole then renamed, so the bench never reads half a record.
    fs.writeFileSync(`${file}.part`, JSON.stringify(record));
    fs.renameSync(`${file}.part`, file);
  };
  process.on('exit', () => write(true));
  if (process.env.BENCH_USAGE_ON_SIGNAL) process.on('SIGUSR2', () => write(false));
}
