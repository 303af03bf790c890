/**
 * `node --import tsx bench/worker-cache.ts [--dir TREE] [--seconds S]`: the Worker in workerd
 * answering one popular wallet's filtered daily document: with neither the colo's cache nor an
 * index held in the isolate (each answer reads a window of the index, then the document's range of
 * its archive), with the index held, and with the cache: requests per second and R2 reads per
 * 1,000 requests, one after the other in one run. TREE defaults to public/ (npm start builds it);
 * the wallet is the tree's example wallet.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { startWorkerd } from '../preview/workerd.ts';

const { values } = parseArgs({ options: { dir: { type: 'string', default: 'public' }, seconds: { type: 'string', default: '10' } } });
const dir = path.resolve(values.dir!);
const seconds = Number(values.seconds);
const meta = JSON.parse(fs.readFileSync(path.join(dir, '_snapshot/meta.json'), 'utf8')) as { exampleWallet: string; dailyAsOf: string };
const entry = fileURLToPath(new URL('./counting-worker.ts', import.meta.url));
const target = `/v1/address/${meta.exampleWallet}/portfolio/daily?from=${meta.dailyAsOf.slice(0, 8)}01&to=${meta.dailyAsOf}`;

const rows: string[] = [];
const variants: { name: string; bindings: Record<string, string> }[] = [
  { name: 'no cache, index read per request', bindings: { TREE_CACHE: 'off', TREE_HELD_INDEX: 'off' } },
  { name: 'no cache, index held', bindings: { TREE_CACHE: 'off' } },
  { name: 'cache', bindings: {} },
];
for (const variant of variants) {
  const worker = await startWorkerd({ dir, port: 0, host: '127.0.0.1', variant: { entry, bindings: variant.bindings } });
  try {
    await worker.loaded();
    const readsBefore = Number(await (await fetch(`${worker.url}/__r2-reads`)).text());
    const result = await autocannon({
      url: `${worker.url}${target}`,
      connections: 16,
      duration: seconds,
      headers: { 'accept-encoding': 'gzip' },
    });
    const reads = Number(await (await fetch(`${worker.url}/__r2-reads`)).text()) - readsBefore;
    const requests = result.requests.total;
    rows.push(
      `| ${variant.name} | ${result.requests.average.toFixed(0)} | ${result.latency.p50} | ${result.latency.p99} | ${requests} | ${reads} | ${((reads / requests) * 1000).toFixed(1)} |`,
    );
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${result.non2xx} non-2xx answers, ${result.errors} errors`);
  } finally {
    await worker.close();
  }
}
process.stdout.write(
  `GET ${target}, 16 connections, ${seconds} s each\n| variant | requests/s | p50 ms | p99 ms | requests | R2 reads | R2 reads per 1,000 requests |\n|---|---|---|---|---|---|---|\n${rows.join('\n')}\n`,
);
