/**
 * One shard of a tree packed (tree/bucket.ts): its files, in tree path order, as members of tar
 * archives of at most 64 MiB (tree/pack-archive.ts), each archive sent as it fills up, then the
 * index of where each file is (tree/pack-index.ts). Each file is read once, and checked against
 * the sha256 its build recorded before its archive can be sent: an archive holds only checked
 * bytes, and the first file that fails stops the packing. Publish sends them to object storage;
 * `serve --runtime workerd` puts them into its local bucket: both through this one code.
 *
 * The archives are the same bytes each time the same tree is packed (files in path order, gzip
 * at one level, headers from the files' own facts), so a publish stopped midway and run again
 * skips the archives stored already whole (same size, same MD5) and sends the rest.
 */
import type { Progress } from '../core/progress.ts';
import { ARCHIVE_MAX_BYTES, archiveName, INDEX_NAME } from '../tree/bucket.ts';
import { ARCHIVE_END, startsNewArchive } from '../tree/pack-archive.ts';
import { buildIndex, type IndexEntry } from '../tree/pack-index.ts';
import type { PackedShard } from '../tree/live-pointer.ts';
import { packRun, TREE_FILE_THREADS } from './tree-file-pool.ts';
import type { TreeFile } from './tree-file.ts';
import { ArchiveSender, type PackTarget, type SentFigures } from './archive-sender.ts';

export type { PackTarget } from './archive-sender.ts';

/** Files per task of the tree-file threads (enough that handing a task over costs little), and tasks in flight (each thread has the next one waiting). */
const PACK_BATCH = 64;
const PACK_TASKS_IN_FLIGHT = 2 * TREE_FILE_THREADS;
/**
 * The shared buffers the threads write runs into, one per task in flight and the one being
 * placed: 4 MiB holds 64 documents of 64 KiB gzipped; a larger run comes in a buffer of its own.
 */
const RUN_BUFFER_BYTES = 4 * 1024 * 1024;

export interface PackSummary extends SentFigures {
  shape: PackedShard;
  files: number;
  /** The files' bytes, uncompressed. */
  rawBytes: number;
}

export interface PackOptions {
  dir: string;
  progress: Progress;
  /** Stops the packing: throws when asked to stop. */
  checkInterrupted(): void;
  /**
   * The error for a file whose bytes are not the ones its build recorded, in the caller's words;
   * `sentBefore`: the archives sent before it was found (each holding only checked files).
   */
  edited(treePath: string, sentBefore: number): Error;
}

export async function packShard(options: PackOptions, files: readonly TreeFile[], target: PackTarget): Promise<PackSummary> {
  const summary: PackSummary = {
    shape: { archives: 0, slots: 1, length: 1, window: 1 },
    files: files.length,
    rawBytes: 0,
    sent: { objects: 0, bytes: 0 },
    skipped: { objects: 0, bytes: 0 },
    storedBytes: 0,
  };
  const entries: IndexEntry[] = [];
  const sender = new ArchiveSender(target);

  let archive = 1;
  // Each run is copied into its archive's buffer as it is placed, so that the run's buffer serves
  // the next task at once. The buffers are reused once an upload is done: a fresh 64 MiB for each
  // archive cost its page faults, and made V8 collect garbage more often (bench/LOG.md).
  const spare: Uint8Array<ArrayBuffer>[] = [];
  let buffer: Uint8Array<ArrayBuffer> | null = null;
  let size = 0;
  const append = (bytes: Uint8Array) => {
    buffer ??= spare.pop() ?? new Uint8Array(ARCHIVE_MAX_BYTES);
    if (size + bytes.length > buffer.length) {
      // A file larger than an archive goes alone into one of its own size.
      const larger = new Uint8Array(size + bytes.length);
      larger.set(buffer.subarray(0, size));
      buffer = larger;
    }
    buffer.set(bytes, size);
    size += bytes.length;
  };
  const closeArchive = async () => {
    append(ARCHIVE_END);
    const full = buffer!;
    buffer = null;
    const length = size;
    size = 0;
    await sender.send(archiveName(archive), full.subarray(0, length), () => spare.push(full));
    archive++;
  };

  const batches: TreeFile[][] = [];
  for (let start = 0; start < files.length; start += PACK_BATCH) batches.push(files.slice(start, start + PACK_BATCH));
  // Tasks start in order, a few ahead of the one being placed; a run is let go once placed (held
  // until the end, runs would keep the whole compressed tree in memory).
  const pending = new Map<number, { run: ReturnType<typeof packRun>; into: SharedArrayBuffer }>();
  const runBuffers = Array.from({ length: PACK_TASKS_IN_FLIGHT + 1 }, () => new SharedArrayBuffer(RUN_BUFFER_BYTES));
  let started = 0;
  const startNext = () => {
    const batch = batches[started];
    if (batch) {
      const into = runBuffers.pop()!;
      pending.set(started, { run: packRun(options.dir, batch, into), into });
    }
    started++;
  };
  for (let i = 0; i < PACK_TASKS_IN_FLIGHT; i++) startNext();
  let done = 0;
  try {
    for (let b = 0; b < batches.length; b++) {
      options.checkInterrupted();
      const task = pending.get(b)!;
      const run = await task.run;
      pending.delete(b);
      startNext();
      if ('edited' in run) {
        await sender.settle();
        throw options.edited(run.edited, sender.figures.sent.objects);
      }
      const batch = batches[b]!;
      // The run goes into the archive whole, or cut between members where an archive fills up;
      // `from` is where the run's bytes not yet placed start.
      let from = 0;
      const place = (to: number) => {
        if (to > from) append(run.bytes.subarray(from, to));
        from = to;
      };
      for (let i = 0; i < batch.length; i++) {
        const member = run.members[i]!;
        const memberStart = i === 0 ? 0 : run.members[i - 1]!.end;
        const filled = size + (memberStart - from);
        if (startsNewArchive(filled, member.end - memberStart)) {
          place(memberStart);
          await closeArchive();
        }
        entries.push({
          pathHash: member.pathHash,
          archive,
          offset: size + (member.dataStart - from),
          length: member.length,
          gzip: member.gzip,
          mtimeMs: member.mtimeMs,
          sha256: batch[i]!.sha256,
        });
        summary.rawBytes += member.size;
      }
      place(run.bytes.length);
      runBuffers.push(task.into);
      done += batch.length;
      options.progress.tick(done, files.length, 'files');
      sender.throwIfFailed();
    }
    await closeArchive();
    const index = buildIndex(entries);
    await sender.send(INDEX_NAME, index.bytes);
    await sender.finish();
    return { ...summary, ...sender.figures, shape: { archives: archive - 1, ...index.shape } };
  } finally {
    // The tasks started ahead are settled (their errors are this call's own, reported above or moot).
    await Promise.allSettled([...pending.values()].map((task) => task.run));
    await sender.settle();
  }
}
