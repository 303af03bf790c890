/**
 * The filesystem floor: writes the same files (same relative paths, same sizes) as a built tree,
 * from Node, with nothing computed: the least time any build of that tree could take here.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface FloorResult {
  files: number;
  bytes: number;
  seconds: number;
}

/** Every file of `tree` (relative path and size), folders first-seen order. */
export function listTree(tree: string): { file: string; size: number }[] {
  const files: { file: string; size: number }[] = [];
  for (const entry of fs.readdirSync(tree, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const absolute = path.join(entry.parentPath, entry.name);
    files.push({ file: path.relative(tree, absolute), size: fs.statSync(absolute).size });
  }
  return files;
}

/** The same writes one after another with synchronous calls (the simplest Node writer). */
export function measureSyncFloor(files: { file: string; size: number }[], target: string): FloorResult {
  const content = prepare(files, target);
  const started = performance.now();
  let bytes = 0;
  for (const { file, size } of files) {
    const absolute = path.join(target, file);
    fs.mkdirSync(path.dirname(absolute), { recursive: true });
    fs.writeFileSync(absolute, content.subarray(0, size));
    bytes += size;
  }
  return { files: files.length, bytes, seconds: (performance.now() - started) / 1000 };
}

export async function measureFloor(files: { file: string; size: number }[], target: string, concurrency = 64): Promise<FloorResult> {
  const content = prepare(files, target);
  const started = performance.now();
  let next = 0;
  let bytes = 0;
  const worker = async () => {
    while (next < files.length) {
      const { file, size } = files[next++]!;
      const absolute = path.join(target, file);
      await fs.promises.mkdir(path.dirname(absolute), { recursive: true });
      await fs.promises.writeFile(absolute, content.subarray(0, size));
      bytes += size;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  return { files: files.length, bytes, seconds };
}

/** An empty target, and bytes enough for the largest file (set up before the clock starts). */
function prepare(files: { file: string; size: number }[], target: string): Buffer {
  fs.rmSync(target, { recursive: true, force: true });
  return Buffer.alloc(
    files.reduce((max, file) => Math.max(max, file.size), 0),
    0x20,
  );
}
