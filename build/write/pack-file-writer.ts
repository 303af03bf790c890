/**
 * `build --packed`'s writer, in the file thread (file-thread.ts): each file of the tree becomes a
 * member of the shard's archives as it comes, compressed already (the document threads compress
 * the wallets' documents; the file thread the rest) and hashed already, so that no document is
 * written as a file, read back or compressed twice. When the build ends, `finish` closes the last
 * archive and writes the index and the manifest: the packed folder of tree/packed-folder.ts,
 * members and index exactly as publish stores them (tree/pack-archive.ts, tree/pack-index.ts).
 *
 * Archives are written through one buffer, flushed with one write each time it fills, and hashed
 * as they are written (the descriptor records each one's sha256).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { isCompressible, isPublished } from '../../tree/bucket.ts';
import { ARCHIVE_END, memberHeader, memberName, memberPadding, startsNewArchive } from '../../tree/pack-archive.ts';
import { EntryRecords } from '../../tree/pack-index.ts';
import { PACKED_MANIFEST, packedArchivePath, packedIndexPath, pathHashOfSync, sha256Hex } from '../../tree/packed-folder.ts';
import { manifestLine } from '../../tree/manifest-line.ts';
import { gzip } from '../../tree/pack-compress.ts';
import type { PackedFolder } from '../../schemas/packed-folder.ts';

/** What the build's main thread adds to the pack's own facts to make the descriptor. */
export type PackFacts = Omit<PackedFolder, 'format' | 'storage' | 'shard' | 'lastClosedDay' | 'build'>;

/** Bytes gathered before one write to the archive. */
const FLUSH_BYTES = 4 * 1024 * 1024;

export class PackFileWriter {
  private archive = 0;
  private fd = -1;
  /** Bytes of the current archive, written or in the buffer. */
  private size = 0;
  private readonly buffer = Buffer.allocUnsafeSlow(FLUSH_BYTES);
  private buffered = 0;
  private hash = crypto.createHash('sha256');
  private readonly archives: { bytes: number; sha256: string }[] = [];
  /** Each member's index entry, as the index stores it (a shard holds 400,000 members). */
  private readonly entries = new EntryRecords(64 * 1024);
  /** Each member's path, beside its entry: the manifest's lines are made from the two at the end. */
  private readonly paths: string[] = [];
  files = 0;
  rawBytes = 0;

  constructor(
    private readonly root: string,
    private readonly shard: { index: number; count: number },
  ) {
    fs.mkdirSync(path.dirname(path.join(root, packedIndexPath(shard))), { recursive: true });
  }

  /** A file of the tree from its bytes: compressed here when it is text. Files the store does not hold are left out. */
  addFile(treePath: string, bytes: Uint8Array, sha256: string): void {
    if (!isPublished(treePath)) return;
    const compressed = isCompressible(treePath);
    this.addStored(treePath, compressed ? gzip(bytes) : bytes, compressed, sha256, bytes.length);
  }

  /** A file of the tree as it is stored (gzip-compressed when `gzip`), with the sha256 and size of its uncompressed bytes. */
  addStored(treePath: string, stored: Uint8Array, gzipped: boolean, sha256: string, rawSize: number): void {
    const mtimeMs = Date.now();
    const header = memberHeader(memberName(treePath, gzipped), stored.length, mtimeMs);
    const padding = memberPadding(stored.length);
    if (this.fd === -1 || startsNewArchive(this.size, header.length + stored.length + padding)) this.nextArchive();
    this.append(header);
    this.entries.add({
      pathHash: pathHashOfSync(treePath),
      archive: this.archive,
      offset: this.size,
      length: stored.length,
      gzip: gzipped,
      mtimeMs,
      sha256,
    });
    this.append(stored);
    this.pad(padding);
    this.paths.push(treePath);
    this.files++;
    this.rawBytes += rawSize;
  }

  /** Closes the last archive, then writes the index and the manifest; the pack's facts for the descriptor. */
  finish(): PackFacts {
    if (this.fd === -1) this.nextArchive();
    this.closeArchive();
    const index = this.entries.buildIndex();
    fs.writeFileSync(path.join(this.root, packedIndexPath(this.shard)), index.bytes);
    const { paths, entries } = this;
    const order = paths.map((_, i) => i).sort((a, b) => (paths[a]! < paths[b]! ? -1 : paths[a]! > paths[b]! ? 1 : 0));
    const hex = (i: number) => Buffer.from(entries.sha256Of(i)).toString('hex');
    const text = Buffer.from(order.map((i) => manifestLine(hex(i), paths[i]!)).join(''), 'utf8');
    const manifest = zlib.gzipSync(text);
    fs.writeFileSync(path.join(this.root, PACKED_MANIFEST), manifest);
    return {
      files: this.files,
      rawBytes: this.rawBytes,
      pack: { archives: this.archives.length, ...index.shape },
      archives: this.archives,
      index: { bytes: index.bytes.length, sha256: sha256Hex(index.bytes) },
      manifest: { bytes: manifest.length, sha256: sha256Hex(manifest), textSha256: sha256Hex(text) },
    };
  }

  /** After a failure: the archive open is closed (the build's folder goes with the build). */
  abandon(): void {
    if (this.fd !== -1) fs.closeSync(this.fd);
    this.fd = -1;
  }

  private nextArchive(): void {
    if (this.fd !== -1) this.closeArchive();
    this.archive++;
    this.fd = fs.openSync(path.join(this.root, packedArchivePath(this.shard, this.archive)), 'wx');
    this.size = 0;
    this.hash = crypto.createHash('sha256');
  }

  private closeArchive(): void {
    this.pad(memberPadding(this.size));
    this.append(ARCHIVE_END);
    this.flush();
    fs.closeSync(this.fd);
    this.fd = -1;
    this.archives.push({ bytes: this.size, sha256: this.hash.digest('hex') });
  }

  private append(bytes: Uint8Array): void {
    if (bytes.length >= FLUSH_BYTES) {
      this.flush();
      this.write(bytes);
    } else {
      if (this.buffered + bytes.length > FLUSH_BYTES) this.flush();
      this.buffer.set(bytes, this.buffered);
      this.buffered += bytes.length;
    }
    this.size += bytes.length;
  }

  private pad(count: number): void {
    if (count === 0) return;
    if (this.buffered + count > FLUSH_BYTES) this.flush();
    this.buffer.fill(0, this.buffered, this.buffered + count);
    this.buffered += count;
    this.size += count;
  }

  private flush(): void {
    if (this.buffered === 0) return;
    this.write(this.buffer.subarray(0, this.buffered));
    this.buffered = 0;
  }

  private write(bytes: Uint8Array): void {
    this.hash.update(bytes);
    for (let at = 0; at < bytes.length; ) at += fs.writeSync(this.fd, bytes, at, bytes.length - at);
  }
}
