/**
 * `node --import tsx bench/edge-integrity.ts [--dir TREE] [--requests N]`: what the Worker's check
 * of each member against the sha256 its index records costs, in CPU per answer. The Worker's own
 * handler and store (server/app.ts, server/r2-store.ts) run in this process over the tree packed
 * as publish packs it (preview/workerd.ts's loadTree) into a bucket in memory, with no colo cache,
 * so that every answer reads its member from the bucket: with the check and without, alternated,
 * for clients that accept gzip (served as stored: the check's inflate is all extra) and clients
 * that do not (the handler inflates anyway). Memory stands in for R2 so that only CPU is measured.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createApp } from '../server/app.ts';
import { R2TreeStore, type R2BucketLike } from '../server/r2-store.ts';
import { loadTree } from '../preview/workerd.ts';
import { pointerText } from '../tree/live-pointer.ts';
import { POINTER_KEY } from '../tree/bucket.ts';

const { values } = parseArgs({ options: { dir: { type: 'string', default: 'public' }, requests: { type: 'string', default: '3000' } } });
const dir = path.resolve(values.dir!);
const requests = Number(values.requests);

const objects = new Map<string, Uint8Array>();
const bucket: R2BucketLike & { put(key: string, value: Uint8Array | string): Promise<unknown> } = {
  async get(key, options) {
    const bytes = objects.get(key);
    if (!bytes) return null;
    const part = options?.range ? bytes.slice(options.range.offset, options.range.offset + options.range.length) : bytes.slice();
    return { arrayBuffer: async () => part.buffer as ArrayBuffer };
  },
  async put(key, value) {
    objects.set(key, typeof value === 'string' ? new TextEncoder().encode(value) : new Uint8Array(value));
  },
};
const { version, shards } = await loadTree(bucket, fs.realpathSync(dir), dir);
await bucket.put(POINTER_KEY, pointerText({ version, previous: [], publishedAt: new Date().toISOString(), shards }));

const wallets = fs.readdirSync(path.join(dir, 'v1/address'));
const targets = wallets
  .flatMap((wallet) => ['portfolio', 'portfolio/daily', 'points', 'points/history'].map((endpoint) => `/v1/address/${wallet}/${endpoint}`))
  .filter((target) => fs.existsSync(path.join(dir, `${target}.json`)));
const storedBytes = targets.map((target) => fs.statSync(path.join(dir, `${target}.json`)).size);

const apps = {
  checked: createApp(new R2TreeStore(bucket, '', null, undefined, { checkMembers: true }), { compression: 'runtime' }),
  unchecked: createApp(new R2TreeStore(bucket, '', null, undefined, { checkMembers: false }), { compression: 'runtime' }),
};

async function cpuPerAnswer(app: (typeof apps)['checked'], encoding: string, count: number): Promise<number> {
  const started = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const answer = await app.fetch(new Request(`http://bench${targets[i % targets.length]}`, { headers: { 'Accept-Encoding': encoding } }));
    if (answer.status !== 200) throw new Error(`${targets[i % targets.length]} answered ${answer.status}`);
    await answer.arrayBuffer();
  }
  const used = process.cpuUsage(started);
  return (used.user + used.system) / count;
}

const rows: string[] = [];
for (const encoding of ['gzip', 'identity']) {
  const results: Record<string, number[]> = { checked: [], unchecked: [] };
  for (const name of ['checked', 'unchecked'] as const) await cpuPerAnswer(apps[name], encoding, 300);
  for (let round = 0; round < 3; round++) {
    for (const name of ['checked', 'unchecked'] as const) results[name]!.push(await cpuPerAnswer(apps[name], encoding, requests));
  }
  const best = (name: string) => Math.min(...results[name]!);
  rows.push(
    `| ${encoding} | ${best('unchecked').toFixed(0)} | ${best('checked').toFixed(0)} | ` +
      `${(best('checked') - best('unchecked')).toFixed(0)} |`,
  );
}
const mean = storedBytes.reduce((a, b) => a + b, 0) / storedBytes.length;
process.stdout.write(
  `${targets.length} documents of ${wallets.length} wallets (mean ${(mean / 1024).toFixed(1)} KiB uncompressed), ` +
    `${requests} answers a run, best of 3, CPU µs per answer:\n` +
    `| Accept-Encoding | without the check | with the check | the check |\n|---|---|---|---|\n${rows.join('\n')}\n`,
);
