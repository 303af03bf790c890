import fs from 'node:fs/promises';
import path from 'node:path';
import type { WriterPool } from './writer-pool.ts';

/**
 * Writes the shared files of the tree (leaderboards, fallbacks, meta, host files: a handful),
 * counting files and bytes: as files into the tree's folder, or, for `build --packed`, as members
 * through the writer pool's file thread (pack-file-writer.ts). Every document is ASCII, so
 * characters are bytes. The wallets' files, the bulk of the tree, go through the pool too.
 */
export class TreeWriter {
  files = 0;
  bytes = 0;

  private constructor(
    private readonly store: (file: string, bytes: Buffer) => Promise<void>,
    private readonly onWrite?: (file: string, text: string) => void,
  ) {}

  static intoFolder(root: string, onWrite?: (file: string, text: string) => void): TreeWriter {
    return new TreeWriter(async (file, bytes) => {
      const absolute = path.join(root, file);
      await fs.mkdir(path.dirname(absolute), { recursive: true });
      await fs.writeFile(absolute, bytes);
    }, onWrite);
  }

  static intoPack(pool: WriterPool, onWrite?: (file: string, text: string) => void): TreeWriter {
    return new TreeWriter((file, bytes) => pool.submitFiles([{ path: file, bytes }]), onWrite);
  }

  async write(file: string, text: string): Promise<void> {
    await this.store(file, Buffer.from(text, 'utf8'));
    this.files++;
    this.bytes += text.length;
    this.onWrite?.(file, text);
  }
}
