/**
 * A packed folder: what `build --packed` writes instead of a tree of files, one shard of a night
 * in the form the store keeps it (tree/bucket.ts), so that publish sends its archives as they are
 * and no document is written, read back or compressed twice:
 *
 *   packed.json                       the descriptor (schemas/packed-folder.ts): shard, build, and
 *                                     the size and sha256 of each file below
 *   pack/<K>-of-<N>/<NNNNN>.tar       the archives (tree/pack-archive.ts): every file of the tree
 *                                     the store holds, gzip members for text, as publish packs them
 *   pack/<K>-of-<N>/index             the index (tree/pack-index.ts)
 *   manifest.sha256.gz                the members' "<sha256>  <path>" lines in path order: the
 *                                     shard's record as publish stores it
 *
 * The members are the plain tree's files, byte for byte, its own record (`_snapshot/manifests/`)
 * among them; only the static hosts' files (`_headers`, `_redirects`) are left out, as publish
 * leaves them out. Written here and read here (Node only: verify, publish and serve read it).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { gunzip } from './pack-compress.ts';
import { UserError, messageOf } from '../core/errors.ts';
import { PackedFolderSchema, type PackedFolder } from '../schemas/packed-folder.ts';
import { archiveName, INDEX_NAME, packFolder, STORAGE_FORMAT } from './bucket.ts';
import { findEntry, pathHashFromDigest, type IndexEntry } from './pack-index.ts';
import { parseManifestLine } from './manifest-line.ts';

export const PACKED_DESCRIPTOR = 'packed.json';
export const PACKED_MANIFEST = 'manifest.sha256.gz';

export const packedArchivePath = (shard: { index: number; count: number }, archive: number) =>
  `${packFolder(shard)}${archiveName(archive)}`;
export const packedIndexPath = (shard: { index: number; count: number }) => `${packFolder(shard)}${INDEX_NAME}`;

/** Whether `dir` holds a packed folder (its descriptor), not a tree of files. */
export function isPackedFolder(dir: string): boolean {
  return fs.existsSync(path.join(dir, PACKED_DESCRIPTOR));
}

/** `packed.json`'s text for a descriptor (checked against its schema: a wrong one is a bug). */
export function packedDescriptorText(descriptor: PackedFolder): string {
  return `${JSON.stringify(PackedFolderSchema.parse(descriptor), null, 2)}\n`;
}

/** One member as stored: where it is, its bytes as stored, and its index entry. */
export interface StoredMember {
  entry: IndexEntry;
  stored: Buffer;
}

/**
 * A packed folder opened for reading: its descriptor checked, its index read and checked against
 * the descriptor's sha256, its archives each of the recorded size. Members are read by path
 * through the index (one positioned read each) and each checked against its index entry.
 */
export class OpenedPackedFolder {
  private readonly archives = new Map<number, number>();

  private constructor(
    readonly dir: string,
    readonly descriptor: PackedFolder,
    readonly index: Uint8Array,
  ) {}

  /**
   * `shownDir`: the folder as the user named it, for the refusals. Refused (UserError, exit 1) when
   * the descriptor is not one this release writes, or the index or an archive is missing, of
   * another size, or (the index) of other bytes than recorded.
   */
  static open(dir: string, shownDir: string): OpenedPackedFolder {
    const refuse = (why: string) => new UserError(`--dir ${shownDir} is not a packed folder as build --packed wrote it: ${why}`);
    let descriptor: PackedFolder;
    try {
      descriptor = PackedFolderSchema.parse(JSON.parse(fs.readFileSync(path.join(dir, PACKED_DESCRIPTOR), 'utf8')));
    } catch (error) {
      throw refuse(`${PACKED_DESCRIPTOR} cannot be read as its descriptor (${messageOf(error).split('\n')[0]})`);
    }
    if (descriptor.storage !== STORAGE_FORMAT)
      throw refuse(`it was packed by another release ("${descriptor.storage}"); build it again with this one`);
    for (const [i, archive] of descriptor.archives.entries()) {
      const file = packedArchivePath(descriptor.shard, i + 1);
      const size = fs.statSync(path.join(dir, file), { throwIfNoEntry: false })?.size;
      if (size === undefined) throw refuse(`${file} is missing`);
      if (size !== archive.bytes) throw refuse(`${file} holds ${size} bytes where ${PACKED_DESCRIPTOR} records ${archive.bytes}`);
    }
    const indexFile = packedIndexPath(descriptor.shard);
    let index: Buffer;
    try {
      index = fs.readFileSync(path.join(dir, indexFile));
    } catch (error) {
      throw refuse(`${indexFile} cannot be read (${messageOf(error)})`);
    }
    if (index.length !== descriptor.index.bytes || sha256Hex(index) !== descriptor.index.sha256)
      throw refuse(`${indexFile} is not the index the build wrote (its size or sha256 is not the one ${PACKED_DESCRIPTOR} records)`);
    return new OpenedPackedFolder(dir, descriptor, index);
  }

  /** The members' lines in path order (the shard's record as publish stores it), checked against the descriptor. */
  manifestText(): string {
    const file = path.join(this.dir, PACKED_MANIFEST);
    let text: string;
    try {
      const stored = fs.readFileSync(file);
      if (stored.length !== this.descriptor.manifest.bytes || sha256Hex(stored) !== this.descriptor.manifest.sha256)
        throw new Error(`its size or sha256 is not the one ${PACKED_DESCRIPTOR} records`);
      text = zlib.gunzipSync(stored).toString('utf8');
    } catch (error) {
      throw new UserError(`${PACKED_MANIFEST} of ${this.dir} is not the manifest the build wrote (${messageOf(error)})`);
    }
    if (sha256Hex(Buffer.from(text, 'utf8')) !== this.descriptor.manifest.textSha256)
      throw new UserError(`${PACKED_MANIFEST} of ${this.dir} is not the manifest the build wrote (its text's sha256 differs)`);
    return text;
  }

  /** The members (path and sha256) in path order, from the manifest. */
  members(): { path: string; sha256: string }[] {
    const members: { path: string; sha256: string }[] = [];
    for (const line of this.manifestText().split('\n')) {
      if (line === '') continue;
      const parsed = parseManifestLine(line);
      if (!parsed) throw new UserError(`${PACKED_MANIFEST} of ${this.dir} holds a malformed line`);
      members.push(parsed);
    }
    return members;
  }

  /** A member's index entry, or null when the index has none for the path. */
  entryOf(treePath: string): IndexEntry | null {
    return findEntry(this.index, 0, pathHashOfSync(treePath), this.descriptor.pack);
  }

  /** A member's bytes as stored (one positioned read), or null when the index has no entry for the path. */
  readStored(treePath: string): StoredMember | null {
    const entry = this.entryOf(treePath);
    if (!entry) return null;
    const stored = Buffer.allocUnsafe(entry.length);
    const read = fs.readSync(this.archiveFd(entry.archive), stored, 0, entry.length, entry.offset);
    if (read !== entry.length)
      throw new Error(
        `${packedArchivePath(this.descriptor.shard, entry.archive)} ends before ${treePath}'s bytes (${read} of ${entry.length})`,
      );
    return { entry, stored };
  }

  /** A member's bytes uncompressed, or null without an entry; throws when they are not the ones its entry records. */
  readFile(treePath: string): Buffer | null {
    const member = this.readStored(treePath);
    if (!member) return null;
    const bytes = member.entry.gzip ? gunzip(member.stored) : member.stored;
    if (sha256Hex(bytes) !== member.entry.sha256) throw new Error(`${treePath}: its bytes are not the ones its index entry records`);
    return bytes;
  }

  close(): void {
    for (const fd of this.archives.values()) fs.closeSync(fd);
    this.archives.clear();
  }

  private archiveFd(archive: number): number {
    let fd = this.archives.get(archive);
    if (fd === undefined) {
      if (archive < 1 || archive > this.descriptor.pack.archives)
        throw new Error(`the index names archive ${archive}, and the folder has ${this.descriptor.pack.archives}`);
      fd = fs.openSync(path.join(this.dir, packedArchivePath(this.descriptor.shard, archive)), 'r');
      this.archives.set(archive, fd);
    }
    return fd;
  }
}

export function sha256Hex(bytes: Uint8Array): string {
  return crypto.createHash('sha256').update(bytes).digest('hex');
}

/** A path's hash in the index (tree/pack-index.ts), synchronously with node:crypto. */
export function pathHashOfSync(treePath: string): bigint {
  return pathHashFromDigest(crypto.createHash('sha256').update(treePath).digest());
}
