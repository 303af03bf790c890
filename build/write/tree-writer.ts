import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * Writes the shared files of the tree (leaderboards, fallbacks, meta, host files: a handful),
 * counting files and bytes. Every document is ASCII, so characters are bytes. The wallets' files,
 * the bulk of the tree, are written by the file thread (file-thread.ts).
 */
export class TreeWriter {
  files = 0;
  bytes = 0;

  constructor(
    readonly root: string,
    private readonly onWrite?: (file: string, text: string) => void,
  ) {}

  async write(file: string, text: string): Promise<void> {
    const absolute = path.join(this.root, file);
    await fs.mkdir(path.dirname(absolute), { recursive: true });
    await fs.writeFile(absolute, text);
    this.files++;
    this.bytes += text.length;
    this.onWrite?.(file, text);
  }
}
