/**
 * Where a step's seconds went: the V8 CPU profiles of every thread of one process (`node
 * --cpu-prof --cpu-prof-dir DIR`, as `npm run bench -- --shard K/N --profile DIR` runs each step)
 * summed into the kinds of work a shard's job does. Each sample goes to the first kind its stack
 * matches, from the leaf up, so that a hash called from the writer counts as hashing. DuckDB's
 * own threads run native code V8 does not sample: the process's CPU-seconds less what the
 * profiles saw is theirs (with the kernel's time for the sampled threads' calls, which V8 counts).
 *
 *   node --import tsx bench/profile-summary.ts DIR [PROCESS_CPU_SECONDS]
 */
import fs from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The kinds of work, each with the frames that mark it; the first that matches a frame wins. */
const KINDS: [kind: string, matches: (name: string, url: string) => boolean][] = [
  ['garbage collection', (name) => name === '(garbage collector)'],
  ['compression (gzip)', (name, url) => url.includes('node:zlib') || /^(zlibBufferSync|processChunkSync)$/.test(name)],
  ['hashing (sha256)', (_name, url) => url.includes('internal/crypto/hash')],
  // The build's WebAssembly is its writer; verify's is its pass over number texts.
  ['WebAssembly (build: the writer; verify: number texts)', (name, url) => name.startsWith('wasm-function') || url.startsWith('wasm://')],
  ['reading DuckDB results', (_name, url) => url.includes('@duckdb')],
  [
    'file system calls',
    (name, url) =>
      url === 'node:fs' ||
      url.includes('internal/fs/') ||
      /^(open|close|read|writeBuffer|writeBuffers|writeString|mkdir|fstat|lstat|stat|readdir|openFileHandle|fsync)$/.test(name),
  ],
  [
    'messages between threads',
    (name, url) => /^(postMessage|receiveMessageOnPort|structuredClone)$/.test(name) || url.includes('internal/worker'),
  ],
  ['verify: number texts', (_name, url) => url.endsWith('tree/verify-exact.ts')],
  ['verify: schemas', (_name, url) => url.endsWith('tree/verify-schema.ts')],
  ['verify: JSON.parse and the rules', (_name, url) => /tree\/verify[^/]*\.ts$/.test(url)],
  ['packed folder (tar, index)', (_name, url) => /tree\/(pack-[^/]*|packed-[^/]*)\.ts$/.test(url) || url.endsWith('pack-file-writer.ts')],
  ['points documents (JSON text)', (_name, url) => /build\/write\/(history-rows|points[^/]*)\.ts$/.test(url)],
  ['portfolio documents (JavaScript)', (_name, url) => /build\/(write|compute)\//.test(url)],
  [
    'upload (S3 client, HTTP)',
    (_name, url) => url.includes('@aws-sdk') || url.includes('@smithy') || /node:(http|https|net|tls)/.test(url) || /\/publish\//.test(url),
  ],
  ['loading code', (_name, url) => /esm|tsx|cjs|bootstrap|loader|node:internal\/modules/.test(url)],
];

export interface ProfileSummary {
  /** Seconds sampled busy, by kind of work, all threads together. */
  kinds: Record<string, number>;
  busySeconds: number;
  /** Per thread (profile file): its busy seconds. */
  threads: { file: string; busySeconds: number }[];
}

export function summariseProfiles(dir: string): ProfileSummary {
  const kinds: Record<string, number> = {};
  const threads: { file: string; busySeconds: number }[] = [];
  let busy = 0;
  for (const file of fs.readdirSync(dir).filter((name) => name.endsWith('.cpuprofile'))) {
    const profile = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as Profile;
    const byId = new Map(profile.nodes.map((node) => [node.id, node]));
    const parent = new Map<number, number>();
    for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
    const kindOf = new Map<number, string>();
    const classify = (id: number): string => {
      const known = kindOf.get(id);
      if (known !== undefined) return known;
      const { functionName: name, url } = byId.get(id)!.callFrame;
      if (name === '(idle)') return '';
      const match = KINDS.find(([, matches]) => matches(name, url));
      const up = parent.get(id);
      const kind = match ? match[0] : up === undefined ? 'other' : classify(up);
      kindOf.set(id, kind);
      return kind;
    };
    let threadBusy = 0;
    for (let i = 0; i < profile.samples.length; i++) {
      const kind = classify(profile.samples[i]!);
      if (kind === '') continue;
      const seconds = (profile.timeDeltas[i] ?? 0) / 1e6;
      kinds[kind] = (kinds[kind] ?? 0) + seconds;
      threadBusy += seconds;
    }
    threads.push({ file, busySeconds: threadBusy });
    busy += threadBusy;
  }
  return { kinds, busySeconds: busy, threads };
}

export function formatProfileSummary(summary: ProfileSummary, processCpuSeconds: number | null): string {
  const lines = Object.entries(summary.kinds)
    .sort(([, a], [, b]) => b - a)
    .map(([kind, seconds]) => `  ${kind.padEnd(36)} ${seconds.toFixed(1).padStart(7)} s`);
  lines.push(`  ${'sampled in all'.padEnd(36)} ${summary.busySeconds.toFixed(1).padStart(7)} s on ${summary.threads.length} threads`);
  if (processCpuSeconds !== null)
    lines.push(
      `  ${'not sampled (DuckDB, libuv, kernel)'.padEnd(36)} ${(processCpuSeconds - summary.busySeconds).toFixed(1).padStart(7)} s of the process's ${processCpuSeconds.toFixed(1)} CPU-s`,
    );
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [dir, cpu] = process.argv.slice(2);
  process.stdout.write(`${formatProfileSummary(summariseProfiles(dir!), cpu === undefined ? null : Number(cpu))}\n`);
}
