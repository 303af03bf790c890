import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * Writes files under one root with a bounded number of writes in flight, so that JSON assembly
 * (on the main thread) overlaps the filesystem work (on libuv's threads) without queuing an
 * unbounded amount of text in memory. Every document is ASCII, so characters are bytes.
 */
export class FileWriter {
  files = 0;
  bytes = 0;
  private readonly inFlight = new Set<Promise<void>>();
  private failure: unknown = null;

  constructor(
    readonly root: string,
    private readonly concurrency = 32,
    private readonly onWrite?: (file: string, text: string) => void,
  ) {}

  /**
   * Queues files (tree-relative paths) after creating `folder`, the deepest folder they need;
   * waits while the pool is full.
   */
  async writeGroup(folder: string, files: [file: string, text: string][]): Promise<void> {
    this.throwIfFailed();
    while (this.inFlight.size >= this.concurrency) {
      await Promise.race(this.inFlight);
      this.throwIfFailed();
    }
    const task = this.write(folder, files).catch((error) => {
      this.failure ??= error;
    });
    this.inFlight.add(task);
    void task.finally(() => this.inFlight.delete(task));
  }

  async drain(): Promise<void> {
    await Promise.all(this.inFlight);
    this.throwIfFailed();
  }

  private async write(folder: string, files: [string, string][]): Promise<void> {
    await fs.mkdir(path.join(this.root, folder), { recursive: true });
    await Promise.all(
      files.map(async ([file, text]) => {
        await fs.writeFile(path.join(this.root, file), text);
        this.files++;
        this.bytes += text.length;
        this.onWrite?.(file, text);
      }),
    );
  }

  private throwIfFailed(): void {
    if (this.failure !== null) throw this.failure;
  }
}
