/**
 * A packed folder (tree/packed-folder.ts) read as a tree of files, for `verify`: its files are the
 * manifest's lines, listed as folders and read through the index; alongside, the archives are read
 * once from start to end, every member's header checked against the index (each member has the
 * entry that points at it, each entry a member, nothing else in an archive), and every line of the
 * manifest against the index and the archives. What the members hold is proven by the same checks
 * as a plain tree's files (the build's record, the schemas, the rules across files). Node only.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { isCompressible } from './bucket.ts';
import { gunzip } from './pack-compress.ts';
import { ARCHIVE_END, memberPadding, readMemberHeader } from './pack-archive.ts';
import { countEntries } from './pack-index.ts';
import { OpenedPackedFolder, PACKED_DESCRIPTOR, PACKED_MANIFEST, packedArchivePath, packedIndexPath } from './packed-folder.ts';
import { listed, missingFile, PathListing, type TreeEntry, type TreeFiles } from './tree-files.ts';
import { ADDRESS_DIR } from './layout.ts';

type Fail = (message: string) => void;

/** Bytes read from an archive at a time. */
const CHUNK_BYTES = 8 * 1024 * 1024;
const BLOCK = 512;

/** A member's tree path and whether it is stored gzipped, from its name in the archive. */
function memberPathOf(name: string): { path: string; gzip: boolean } {
  const plain = name.endsWith('.gz') ? name.slice(0, -3) : null;
  return plain !== null && isCompressible(plain) ? { path: plain, gzip: true } : { path: name, gzip: false };
}

/** Reads members through the index (the verify threads open one each; the main thread checks the index against the archives alongside). */
export class PackedFiles implements TreeFiles {
  constructor(
    readonly folder: OpenedPackedFolder,
    private readonly listing: PathListing,
    readonly where: string,
  ) {}

  /** Opened in a verify thread: the listing is the batch's (its wallets' members). */
  static reopen(dir: string, listing: PathListing): PackedFiles {
    return new PackedFiles(OpenedPackedFolder.open(dir, dir), listing, dir);
  }

  /** The same folder, seen through another listing (the next batch's). */
  withListing(listing: PathListing): PackedFiles {
    return new PackedFiles(this.folder, listing, this.where);
  }

  entries(folder: string): TreeEntry[] {
    return this.listing.entries(folder);
  }

  list(folder: string): TreeEntry[] | null {
    return listed(() => this.listing.entries(folder));
  }

  read(file: string): Buffer {
    const member = this.folder.readStored(file);
    if (!member) throw missingFile(file);
    return member.entry.gzip ? gunzip(member.stored) : member.stored;
  }

  close(): void {
    this.folder.close();
  }
}

/** A packed folder opened for verify: its files, each wallet's members, and the check of its archives. */
export interface OpenedForVerify {
  files: PackedFiles;
  /** The members under each wallet folder, from the manifest (they go to the threads with the wallet's batch). */
  walletMembers: Map<string, string[]>;
  /**
   * Reads every archive once, from start to end, against the index and the manifest, reporting
   * each disagreement through `fail`; it yields between archives, so that it runs alongside the
   * wallets' threads instead of before them.
   */
  checkArchives(fail: Fail): Promise<void>;
}

/**
 * Opens a packed folder for verify: refused (UserError) when its descriptor, index or manifest are
 * not the ones it records. Its files are listed from the manifest, whose every line the index
 * must record with the same sha256; that the archives hold exactly those members, where the index
 * says, is `checkArchives`'s part.
 */
export function openPackedFiles(dir: string, shownDir: string, fail: Fail): OpenedForVerify {
  const folder = OpenedPackedFolder.open(dir, shownDir);
  const paths: string[] = [];
  try {
    for (const line of folder.members()) {
      paths.push(line.path);
      // A line without an entry is one no archive holds, or one the index lacks: checkArchives says which.
      const entry = folder.entryOf(line.path);
      if (entry && entry.sha256 !== line.sha256) fail(`${PACKED_MANIFEST}: ${line.path}'s sha256 is not the one the index records`);
    }
  } catch (error) {
    folder.close();
    throw error;
  }
  const walletMembers = new Map<string, string[]>();
  const walletPrefix = `${ADDRESS_DIR}/`;
  for (const file of paths) {
    if (!file.startsWith(walletPrefix)) continue;
    const wallet = file.slice(walletPrefix.length, file.indexOf('/', walletPrefix.length));
    const own = walletMembers.get(wallet);
    if (own) own.push(file);
    else walletMembers.set(wallet, [file]);
  }
  const inManifest = new Set(paths);
  return {
    files: new PackedFiles(folder, new PathListing(paths), shownDir),
    walletMembers,
    async checkArchives(report: Fail) {
      const { descriptor } = folder;
      const members = await scanArchives(folder, report);
      const entries = countEntries(folder.index);
      if (entries !== members.size)
        report(
          `${packedIndexPath(descriptor.shard)}: ${entries} entries for ${members.size} members in the archives (an entry without its member)`,
        );
      if (members.size !== descriptor.files)
        report(`${PACKED_DESCRIPTOR}: records ${descriptor.files} members, the archives hold ${members.size}`);
      // The files are listed from the manifest: a member it does not list would never be read, so it is named here.
      for (const file of inManifest) if (!members.has(file)) report(`${PACKED_MANIFEST}: lists ${file}, which no archive holds`);
      for (const file of members) if (!inManifest.has(file)) report(`${PACKED_MANIFEST}: does not list ${file}, which an archive holds`);
      if (inManifest.size !== paths.length) report(`${PACKED_MANIFEST}: lists a file more than once`);
      if (paths.length !== members.size) report(`${PACKED_MANIFEST}: lists ${paths.length} files, the archives hold ${members.size}`);
    },
  };
}

/**
 * Every archive from start to end: each member's header, its entry in the index (the same
 * archive, offset, length and encoding), the padding, the end blocks and nothing after them.
 * The members' paths, in archive order.
 */
async function scanArchives(folder: OpenedPackedFolder, fail: Fail): Promise<Set<string>> {
  const { descriptor } = folder;
  const members = new Set<string>();
  for (let archive = 1; archive <= descriptor.pack.archives; archive++) {
    // Each archive (about a third of a second) in a turn of its own: the threads' batches are handed out in between.
    await new Promise((resolve) => setImmediate(resolve));
    const name = packedArchivePath(descriptor.shard, archive);
    const reader = new SequentialReader(path.join(folder.dir, name));
    const recorded = descriptor.archives[archive - 1]!.sha256;
    /** Members whose entry points elsewhere: said once for the archive (one member cut out moves every later one). */
    const astray: string[] = [];
    try {
      let at = 0;
      for (;;) {
        const block = reader.bytesAt(at, BLOCK);
        if (block === null) {
          fail(`${name}: ends at byte ${at} without the end of a tar archive`);
          break;
        }
        const header = readMemberHeader(block);
        if (header === null) {
          const end = reader.bytesAt(at, ARCHIVE_END.length);
          if (end === null || end.some((byte) => byte !== 0)) fail(`${name}: the block at byte ${at} is not a member's header`);
          else if (at + ARCHIVE_END.length !== reader.size) fail(`${name}: ${reader.size - at - ARCHIVE_END.length} bytes after its end`);
          break;
        }
        const member = memberPathOf(header.name);
        const dataStart = at + BLOCK;
        const entry = folder.entryOf(member.path);
        if (members.has(member.path)) fail(`${name}: ${member.path} is a member twice`);
        else if (!entry) fail(`${name}: ${member.path} is an extra member (the index has no entry for it)`);
        else if (entry.archive !== archive || entry.offset !== dataStart || entry.length !== header.size || entry.gzip !== member.gzip)
          astray.push(member.path);
        members.add(member.path);
        at = dataStart + header.size + memberPadding(header.size);
        if (at > reader.size) {
          fail(`${name}: ${member.path} is cut short (the archive ends within it)`);
          break;
        }
      }
      if (astray.length > 0)
        fail(
          `${packedIndexPath(descriptor.shard)}: the entries of ${astray.length} member${astray.length === 1 ? '' : 's'} of ${name} do not point at them (the first: ${astray[0]})`,
        );
      if (reader.sha256() !== recorded)
        fail(`${name}: its bytes are not the ones the build wrote (its sha256 is not the one ${PACKED_DESCRIPTOR} records)`);
    } finally {
      reader.close();
    }
  }
  return members;
}

/** A file read once from start to end in large chunks, and hashed as it is read; `bytesAt` serves reads at growing offsets. */
class SequentialReader {
  readonly size: number;
  private readonly fd: number;
  private chunk = Buffer.alloc(0);
  private chunkStart = 0;
  private readonly hash = crypto.createHash('sha256');

  constructor(file: string) {
    this.fd = fs.openSync(file, 'r');
    this.size = fs.fstatSync(this.fd).size;
  }

  /** `length` bytes at `offset` (at or past the previous read's), or null past the end. Bytes skipped over are read and hashed too. */
  bytesAt(offset: number, length: number): Buffer | null {
    if (offset + length > this.size) return null;
    while (offset + length > this.chunkStart + this.chunk.length) {
      const next = this.chunkStart + this.chunk.length;
      // The part of the current chunk still needed is kept at the start of the next one.
      const keep = offset >= this.chunkStart && offset < next ? this.chunk.subarray(offset - this.chunkStart) : Buffer.alloc(0);
      const size = Math.min(Math.max(CHUNK_BYTES, length), this.size - next);
      const fresh = Buffer.allocUnsafe(size);
      let read = 0;
      while (read < size) {
        const got = fs.readSync(this.fd, fresh, read, size - read, next + read);
        if (got === 0) return null;
        read += got;
      }
      this.hash.update(fresh);
      this.chunk = keep.length > 0 ? Buffer.concat([keep, fresh]) : fresh;
      this.chunkStart = next - keep.length;
    }
    return this.chunk.subarray(offset - this.chunkStart, offset - this.chunkStart + length);
  }

  /** The file's sha256: its bytes not read yet are read for it. */
  sha256(): string {
    if (this.size > 0) this.bytesAt(this.size - 1, 1);
    return this.hash.digest('hex');
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}
