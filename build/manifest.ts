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
import { EXIT_CANNOT_WRITE, UserError, isWriteRefused, messageOf } from './errors.ts';
import { removeAbandoned } from './publish.ts';

export class ManifestWriter {
  private readonly stream: fs.WriteStream;
  private readonly partial: string;
  private failure: Error | null = null;

  constructor(private readonly destination: string) {
    const folder = path.dirname(destination);
    const prefix = `.${path.basename(destination)}.partial-`;
    this.partial = path.join(folder, `${prefix}${process.pid}`);
    let fd: number;
    try {
      if (fs.existsSync(destination) && fs.statSync(destination).isDirectory()) throw new Error('it is a directory');
      fs.mkdirSync(folder, { recursive: true });
      removeAbandoned(folder, prefix);
      fd = fs.openSync(this.partial, 'w');
    } catch (error) {
      throw new UserError(`--manifest ${destination} cannot be written (${messageOf(error)})`);
    }
    this.stream = fs.createWriteStream('', { fd });
    // Kept for close(): an error event with no listener would end the process.
    this.stream.on('error', (error) => {
      this.failure ??= error;
    });
  }

  add(file: string, text: string): void {
    this.stream.write(`${crypto.createHash('sha256').update(text).digest('hex')}  ${file}\n`);
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
        reject(new UserError(message, isWriteRefused(failure.message) ? EXIT_CANNOT_WRITE : 1));
      });
    });
  }

  /** Once the tree is published: the manifest takes its place. */
  moveIntoPlace(): void {
    fs.renameSync(this.partial, this.destination);
  }

  /** After a failure: nothing is left beside the destination. */
  discard(): void {
    this.stream.destroy();
    fs.rmSync(this.partial, { force: true });
  }
}
