/**
 * The store of the Node server: a tree folder on disk. `--out` is a symbolic link that each build
 * swaps atomically, so a request resolves it once and reads every file it needs under that one
 * build. A file is opened once and its size, identity and bytes all come from that descriptor:
 * a file swapped away between two system calls can never give a body of one version with the
 * length or validator of another. Bytes read before are kept (an LRU) with the identity of the
 * version they were read from, and served again while the path still names that version.
 *
 * The link and the cache checks use synchronous calls: on a tree the kernel has in its caches
 * they take microseconds, where a round trip through libuv's thread pool per call made the
 * server five times slower (docs/decisions.md).
 */
import crypto from 'node:crypto';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { LRUCache } from 'lru-cache';
import { StoreUnavailableError, type StoredFile, type TreeStore, type TreeVersion } from './store.ts';

/** Files recently read, by path, each with the identity of the version it was read from. */
interface CachedFile {
  identity: string;
  file: StoredFile;
}

/** Running out of descriptors or memory is the host's state, not the file's: answer 503 and stay up. */
const UNAVAILABLE = new Set(['EMFILE', 'ENFILE', 'ENOMEM', 'EAGAIN']);
/** What a path that names no file of the tree gives. */
const MISSING = new Set(['ENOENT', 'ENOTDIR', 'ELOOP', 'ENAMETOOLONG']);

export class FileTreeStore implements TreeStore {
  private readonly cache: LRUCache<string, CachedFile>;

  /** `maxCachedBytes` bounds the bytes kept in memory between requests (daily documents mostly). */
  constructor(
    private readonly root: string,
    maxCachedBytes = 256 * 2 ** 20,
  ) {
    this.cache = new LRUCache<string, CachedFile>({
      maxSize: maxCachedBytes,
      maxEntrySize: maxCachedBytes / 4,
      sizeCalculation: (entry) => Math.max(1, entry.file.bytes.length),
    });
  }

  async open(): Promise<TreeVersion> {
    let base = this.root;
    try {
      base = fsSync.realpathSync.native(this.root);
    } catch (error) {
      throwIfUnavailable(error);
    }
    return { read: (treePath) => this.read(path.join(base, ...treePath.split('/'))) };
  }

  private async read(file: string): Promise<StoredFile | null> {
    const cached = this.cache.get(file);
    if (cached) {
      let current: fsSync.Stats | undefined;
      try {
        current = fsSync.statSync(file, { throwIfNoEntry: false });
      } catch (error) {
        throwIfUnavailable(error);
        if (!MISSING.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
      }
      if (!current) return null;
      if (identityOf(current) === cached.identity) return cached.file;
    }
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(file, 'r');
    } catch (error) {
      throwIfUnavailable(error);
      if (MISSING.has((error as NodeJS.ErrnoException).code ?? '')) return null;
      throw error;
    }
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) return null;
      const identity = identityOf(stats);
      const bytes = await readExactly(handle, stats.size, file);
      const stored: StoredFile = {
        bytes,
        encoding: null,
        digest: crypto.createHash('sha256').update(bytes).digest('hex'),
        modified: Math.floor(stats.mtimeMs),
      };
      this.cache.set(file, { identity, file: stored });
      return stored;
    } catch (error) {
      throwIfUnavailable(error);
      throw error;
    } finally {
      await handle.close();
    }
  }
}

/** A file version: the same inode, size and modification time. */
function identityOf(stats: fsSync.Stats): string {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}`;
}

/** The `size` bytes of an open file; a file cut shorter meanwhile is an error, never a short body. */
async function readExactly(handle: fs.FileHandle, size: number, file: string): Promise<Uint8Array<ArrayBuffer>> {
  const bytes = new Uint8Array(size);
  let done = 0;
  while (done < size) {
    const { bytesRead } = await handle.read(bytes, done, size - done, done);
    if (bytesRead === 0) throw new StoreUnavailableError(`${path.basename(file)} changed while it was read`);
    done += bytesRead;
  }
  return bytes;
}

function throwIfUnavailable(error: unknown): void {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  if (UNAVAILABLE.has(code)) throw new StoreUnavailableError(code === 'EMFILE' || code === 'ENFILE' ? 'out of file descriptors' : code);
}
