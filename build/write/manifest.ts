/**
 * `build --manifest FILE`: one line per file written, `<sha256>  <path>` (the format of
 * `sha256sum`, so `sha256sum -c` checks a tree against it). A nightly upload compares it with
 * the previous night's and sends only the files whose content changed. Lines are appended as
 * files are written (never held in memory).
 *
 * The lines go to a partial file beside FILE, opened before the build starts, so that a FILE that
 * cannot be written fails the build at once and not after the tree is published; once the tree
 * is published the partial file becomes FILE by one rename, on the same filesystem.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { EXIT_CANNOT_WRITE, UserError, isWriteRefused, messageOf } from '../../core/errors.ts';
import { FileLock, lockFiles } from '../swap/lock.ts';
import type { Shard } from '../../core/shard.ts';
import { TreeManifestSchema, type TreeManifest as TreeManifestSummary } from '../../schemas/manifest.ts';
import { manifestListFile, manifestSummaryFile } from '../../tree/manifest-files.ts';
import { ADDRESS_DIR } from '../../tree/layout.ts';
import { manifestLine } from '../../tree/manifest-line.ts';

export class ManifestWriter {
  private readonly stream: fs.WriteStream;
  private failure: Error | null = null;

  /**
   * Opens the partial file beside `destination`, holding a lock of its own (`<partial>.lock`)
   * while it is written: a partial whose lock no live build holds is abandoned.
   */
  static async open(destination: string): Promise<ManifestWriter> {
    const folder = path.dirname(destination);
    const prefix = `.${path.basename(destination)}.partial-`;
    const partial = path.join(folder, `${prefix}${crypto.randomBytes(6).toString('hex')}`);
    let fd: number;
    let lock: FileLock | null;
    try {
      if (fs.existsSync(destination) && fs.statSync(destination).isDirectory()) throw new Error('it is a directory');
      fs.mkdirSync(folder, { recursive: true });
      await removeAbandonedPartials(folder, prefix);
      lock = await FileLock.tryAcquire(partialLock(partial));
      fd = fs.openSync(partial, 'w');
    } catch (error) {
      throw new UserError(`--manifest ${destination} cannot be written (${messageOf(error)})`, 1, { cause: error });
    }
    if (lock === null) throw new UserError(`--manifest ${destination}: its partial file ${partial} is held by another build`);
    return new ManifestWriter(destination, partial, lock, fd);
  }

  private constructor(
    private readonly destination: string,
    private readonly partial: string,
    private readonly lock: FileLock,
    fd: number,
  ) {
    this.stream = fs.createWriteStream('', { fd });
    // Kept for close(): an error event with no listener would end the process.
    this.stream.on('error', (error) => {
      this.failure ??= error;
    });
  }

  add(file: string, text: string): void {
    this.stream.write(manifestLine(crypto.createHash('sha256').update(text).digest('hex'), file));
  }

  /** Lines made elsewhere (the document threads hash what they assemble). */
  append(lines: string): void {
    this.stream.write(lines);
  }

  /** Flushes every line; rejects if any could not be written. */
  close(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.stream.end((error?: Error | null) => {
        const failure = this.failure ?? error;
        if (!failure) return resolve();
        const message = `--manifest ${this.destination} cannot be written (${failure.message}); the previous tree was left untouched`;
        reject(new UserError(message, isWriteRefused(failure.message) ? EXIT_CANNOT_WRITE : 1, { cause: failure }));
      });
    });
  }

  /** Once the tree is published: the manifest takes its place. */
  moveIntoPlace(): void {
    fs.renameSync(this.partial, this.destination);
    this.releaseLock();
  }

  /** After a failure: nothing is left beside the destination. */
  discard(): void {
    this.stream.destroy();
    fs.rmSync(this.partial, { force: true });
    this.releaseLock();
  }

  /** The partial's lock file is its own (a random name): it goes once released. */
  private releaseLock(): void {
    this.lock.release();
    for (const file of lockFiles(partialLock(this.partial))) fs.rmSync(file, { force: true });
  }
}

const partialLock = (partial: string) => `${partial}.lock`;

/**
 * Partial manifests left by builds killed outright (SIGKILL, power loss), and their lock files:
 * the ones whose lock no live build holds, whatever machine or PID namespace wrote them.
 */
async function removeAbandonedPartials(folder: string, prefix: string): Promise<void> {
  const names = fs.readdirSync(folder).filter((name) => name.startsWith(prefix));
  for (const name of names) {
    if (name.includes('.lock')) continue;
    const partial = path.join(folder, name);
    const lock = partialLock(partial);
    if (await FileLock.isHeld(lock)) continue;
    for (const file of [partial, ...lockFiles(lock)]) fs.rmSync(file, { force: true });
  }
  // Lock files whose partial is gone (a build killed between the two removals).
  for (const name of names) {
    const partial = path.join(folder, name.replace(/\.lock(\.owner)?$/, ''));
    if (name.includes('.lock') && !fs.existsSync(partial) && !(await FileLock.isHeld(partialLock(partial))))
      fs.rmSync(path.join(folder, name), { force: true });
  }
}

/**
 * The record a build keeps inside its tree of every file it wrote (tree/manifest-files.ts), so
 * that `verify` can prove the tree complete and unedited. The hashes come from the bytes as they
 * were assembled (the document threads hash what they assemble): nothing is read back. Lines are
 * streamed to the list file as files are written, never held in memory; a copy goes to
 * `--manifest FILE` when asked.
 */
const WALLET_PREFIX = `${ADDRESS_DIR}/`;

export class TreeManifest {
  /** The two manifest files, once written. */
  files = 0;
  bytes = 0;
  private readonly stream: fs.WriteStream;
  private readonly digest = crypto.createHash('sha256');
  private listed = 0;
  /** Wallet folders listed (about 5 MB at 100k wallets): whatever writer a wallet's files came from. */
  private readonly wallets = new Set<string>();
  private failure: Error | null = null;
  private readonly shard: { index: number; count: number };

  /**
   * `packed`: a packed build's record goes into its archives (`build --packed`): the list is
   * written to `listFile` (outside the packed folder) and both files are handed to `deliver` when
   * the record is closed.
   */
  constructor(
    private readonly root: string,
    shard: Shard | null,
    private readonly copy: ManifestWriter | null,
    private readonly packed: { listFile: string; deliver: (files: { path: string; bytes: Uint8Array }[]) => Promise<void> } | null = null,
  ) {
    this.shard = shard ?? { index: 1, count: 1 };
    const list = packed?.listFile ?? path.join(root, ...manifestListFile(this.shard).split('/'));
    fs.mkdirSync(path.dirname(list), { recursive: true });
    this.stream = fs.createWriteStream(list);
    this.stream.on('error', (error) => {
      this.failure ??= error;
    });
  }

  add(file: string, text: string): void {
    this.append(manifestLine(crypto.createHash('sha256').update(text).digest('hex'), file));
  }

  /** Lines made elsewhere (`<sha256>  <path>` each, ending in a newline). */
  append(lines: string): void {
    if (lines.length === 0) return;
    this.stream.write(lines);
    this.digest.update(lines);
    for (let start = 0, end = lines.indexOf('\n'); end !== -1; start = end + 1, end = lines.indexOf('\n', start)) {
      this.listed++;
      // `<64 hex>  v1/address/<wallet>/...`
      if (lines.startsWith(WALLET_PREFIX, start + 66)) {
        const from = start + 66 + WALLET_PREFIX.length;
        this.wallets.add(lines.slice(from, lines.indexOf('/', from)));
      }
    }
    this.copy?.append(lines);
  }

  /** Flushes the list, then writes the summary holding its digest and what names the build. */
  async close(build: { now: string; inputs: string }): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.stream.end((error?: Error | null) => {
        const failure = this.failure ?? error;
        if (failure) reject(failure);
        else resolve();
      });
    });
    const summary: TreeManifestSummary = TreeManifestSchema.parse({
      format: 1,
      shard: this.shard,
      wallets: this.wallets.size,
      files: this.listed,
      sha256: this.digest.digest('hex'),
      build,
    });
    const text = JSON.stringify(summary);
    if (this.packed) {
      const list = await fs.promises.readFile(this.packed.listFile);
      await this.packed.deliver([
        { path: manifestListFile(this.shard), bytes: list },
        { path: manifestSummaryFile(this.shard), bytes: Buffer.from(text, 'utf8') },
      ]);
      await fs.promises.rm(this.packed.listFile, { force: true });
    } else {
      await fs.promises.writeFile(path.join(this.root, ...manifestSummaryFile(this.shard).split('/')), text);
    }
    this.files = 2;
    this.bytes = this.stream.bytesWritten + text.length;
  }
}
