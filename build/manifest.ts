/**
 * `build --manifest FILE`: one line per file written, `<sha256>  <path>` (the format of
 * `sha256sum`, so `sha256sum -c` checks a tree against it). A nightly upload compares it with
 * the previous night's and sends only the files whose content changed. Lines are appended as
 * files are written (never held in memory) and the file is moved into place with the tree.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';

export class ManifestWriter {
  private readonly stream: fs.WriteStream;

  constructor(readonly path: string) {
    this.stream = fs.createWriteStream(path);
  }

  add(file: string, text: string): void {
    this.stream.write(`${crypto.createHash('sha256').update(text).digest('hex')}  ${file}\n`);
  }

  /** Lines made elsewhere (the document threads hash what they assemble). */
  append(lines: string): void {
    this.stream.write(lines);
  }

  close(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.stream.once('error', reject);
      this.stream.end(() => resolve());
    });
  }
}
