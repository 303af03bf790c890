/**
 * An exclusive flock(2) lock on a file, held by this process's open file for as long as it lives.
 * The kernel releases it when the process dies, however it dies, and it holds across PID
 * namespaces and containers that share the folder (a PID check does neither).
 *
 * Node has no flock call. The `flock` command (util-linux) is given our open file as its fd 3:
 * flock locks belong to the open file description, which the child shares, so the lock stays held
 * by our descriptor after the child exits, and dies with it. No native addon is needed.
 */
import fs from 'node:fs';
import os from 'node:os';
import { spawnSync } from 'node:child_process';

export class FileLock {
  private constructor(readonly file: string, private fd: number | null) {}

  /**
   * Takes the lock on `file` (created if missing) without waiting: null when another process
   * holds it. `owner` is written into the file for the message another build shows.
   */
  static tryAcquire(file: string, owner?: string): FileLock | null {
    const fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_CREAT, 0o644);
    if (!flockNonBlocking(fd)) {
      fs.closeSync(fd);
      return null;
    }
    if (owner !== undefined) {
      fs.ftruncateSync(fd, 0);
      fs.writeSync(fd, `${owner}\n`, 0);
    }
    return new FileLock(file, fd);
  }

  /** Whether some live process holds the lock on `file` (which must exist). */
  static isHeld(file: string): boolean {
    let fd: number;
    try {
      fd = fs.openSync(file, fs.constants.O_RDONLY);
    } catch {
      return false;
    }
    try {
      return !flockNonBlocking(fd);
    } finally {
      // Closing our only descriptor releases the lock if we just took it.
      fs.closeSync(fd);
    }
  }

  release(): void {
    if (this.fd === null) return;
    fs.closeSync(this.fd);
    this.fd = null;
  }
}

/** Who holds a lock, as the holder wrote it (host, PID in its own namespace, start time). */
export function describeOwner(): string {
  return `pid ${process.pid} on ${os.hostname()}, started ${new Date().toISOString()}`;
}

export function readOwner(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').trim() || 'a process that wrote no details';
  } catch {
    return 'a process that wrote no details';
  }
}

function flockNonBlocking(fd: number): boolean {
  const result = spawnSync('flock', ['--exclusive', '--nonblock', '3'], { stdio: ['ignore', 'ignore', 'pipe', fd] });
  if (result.error) {
    throw new Error(`cannot run the flock command (util-linux), which the build uses to lock its output: ${result.error.message}`);
  }
  if (result.status === 0) return true;
  if (result.status === 1) return false;
  throw new Error(`flock failed (status ${result.status}): ${String(result.stderr).trim()}`);
}
