/**
 * The store of the Node server over what `build --out` points at: a tree of files
 * (file-store.ts), or a packed folder (`build --packed`, tree/packed-folder.ts) read as the Worker
 * reads a published version, by the Worker's own store (r2-store.ts) over the folder's archives
 * and index, so that both hosts answer a packed folder alike, each member checked against the
 * sha256 its index records. `--out` is a link each build swaps: every request resolves it once,
 * and a packed build folder gets a store of its own (its pointer never changes under it).
 */
import fs from 'node:fs';
import path from 'node:path';
import { FileTreeStore } from './file-store.ts';
import { R2TreeStore, type R2BucketLike } from './r2-store.ts';
import { StoreUnavailableError, type TreeStore, type TreeVersion } from './store.ts';
import { archiveName, INDEX_NAME, packFolder, POINTER_KEY, versionPrefix } from '../tree/bucket.ts';
import { pointerText } from '../tree/live-pointer.ts';
import { PACKED_DESCRIPTOR, packedArchivePath, packedIndexPath } from '../tree/packed-folder.ts';
import { PackedFolderSchema, type PackedFolder } from '../schemas/packed-folder.ts';

export class LocalTreeStore implements TreeStore {
  private readonly files: FileTreeStore;
  /** The packed build folder last seen, and its store. */
  private packed: { folder: string; store: R2TreeStore } | null = null;

  constructor(private readonly root: string) {
    this.files = new FileTreeStore(root);
  }

  async open(): Promise<TreeVersion> {
    let real: string | null = null;
    try {
      real = fs.realpathSync.native(this.root);
    } catch {
      // Not there (yet): the file store answers as for any missing tree.
    }
    if (real === null || !fs.existsSync(path.join(real, PACKED_DESCRIPTOR))) return this.files.open();
    if (this.packed?.folder !== real) this.packed = { folder: real, store: new R2TreeStore(packedFolderBucket(real)) };
    return this.packed.store.open();
  }
}

/**
 * A packed folder seen as a bucket holding one published version of one shard: the pointer, made
 * from the descriptor, then the archives and the index as the keys of tree/bucket.ts name them.
 * Whatever shard of N the folder holds, it is served as the whole of that version (as a plain
 * shard's tree is): an address of another shard finds no entry and gets the no-history answer.
 * Each read opens the file it needs, so a build folder removed meanwhile fails that read only.
 */
function packedFolderBucket(folder: string): R2BucketLike {
  let descriptor: PackedFolder | null = null;
  const described = (): PackedFolder => {
    descriptor ??= PackedFolderSchema.parse(JSON.parse(fs.readFileSync(path.join(folder, PACKED_DESCRIPTOR), 'utf8')));
    return descriptor;
  };
  // A version id made of the folder's own facts: the last closed day, and its manifest's digest.
  const version = () => `${described().lastClosedDay}-${described().manifest.textSha256.slice(0, 16)}`;
  const served = { index: 1, count: 1 };
  return {
    async get(key, options) {
      let file: string;
      if (key === POINTER_KEY) {
        const text = pointerText({ version: version(), previous: [], publishedAt: described().build.now, shards: [described().pack] });
        return { arrayBuffer: async () => new TextEncoder().encode(text).buffer as ArrayBuffer };
      }
      const pack = `${versionPrefix(version())}${packFolder(served)}`;
      if (!key.startsWith(pack)) return null;
      const name = key.slice(pack.length);
      if (name === INDEX_NAME) file = packedIndexPath(described().shard);
      else {
        const archive = /^([0-9]{5})\.tar$/.exec(name);
        if (!archive || archiveName(Number(archive[1])) !== name) return null;
        file = packedArchivePath(described().shard, Number(archive[1]));
      }
      const bytes = readRange(path.join(folder, file), options?.range);
      return bytes ? { arrayBuffer: async () => bytes.buffer as ArrayBuffer } : null;
    },
  };
}

/** A file's bytes (a range of them), or null when the file is not there. */
function readRange(file: string, range?: { offset: number; length: number }): Uint8Array | null {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new StoreUnavailableError((error as Error).message);
  }
  try {
    const length = range?.length ?? fs.fstatSync(fd).size;
    const bytes = new Uint8Array(length);
    let done = 0;
    while (done < length) {
      const read = fs.readSync(fd, bytes, done, length - done, (range?.offset ?? 0) + done);
      if (read === 0) break;
      done += read;
    }
    return done === length ? bytes : bytes.subarray(0, done);
  } finally {
    fs.closeSync(fd);
  }
}
