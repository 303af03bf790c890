/**
 * An exclusive lock held by this process for as long as it lives: the kernel releases it when the
 * process dies, however it dies (kill -9 included), and it holds across PID namespaces and
 * containers that share the folder (a PID check does neither).
 *
 * Node has no flock or fcntl call, and the `flock` command is util-linux's (not on macOS nor in
 * minimal images). DuckDB, already a dependency on every platform it ships for, takes an exclusive
 * fcntl(2) lock on a database file it opens for writing and refuses a second opener ("Could not set
 * lock on file"): the lock file is a tiny empty DuckDB database, held open. fcntl locks belong to
 * the process and are dropped when it closes any descriptor of the file, so nothing else in this
 * process ever opens a lock file: whether this process holds one is remembered here, and who holds
 * it is written to a file beside it (`<file>.owner`). docs/decisions.md, "The lock without flock".
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { messageOf } from '../../core/errors.ts';

/** One thread and little memory: the database only ever holds the lock. */
const LOCK_DATABASE_OPTIONS = { access_mode: 'READ_WRITE', threads: '1', memory_limit: '16MB' };
/** The lock files this process holds (opening one again would drop the lock: see above). */
const heldHere = new Set<string>();

export class FileLock {
  private constructor(
    readonly file: string,
    private database: DuckDBInstance | null,
  ) {}

  /**
   * Takes the lock on `file` (a lock file of its own, made if missing) without waiting: null when
   * another process, or this one, holds it. `owner` is written beside it (`<file>.owner`) for the
   * message another build shows.
   */
  static async tryAcquire(file: string, owner?: string): Promise<FileLock | null> {
    const key = path.resolve(file);
    if (heldHere.has(key)) return null;
    // Taken here at once, so that two callers in this process never both open the file.
    heldHere.add(key);
    let database: DuckDBInstance | null;
    try {
      database = await openLockDatabase(key);
    } catch (error) {
      heldHere.delete(key);
      throw error;
    }
    if (database === null) {
      heldHere.delete(key);
      return null;
    }
    if (owner !== undefined) writeOwner(key, owner);
    return new FileLock(key, database);
  }

  /** Whether a live process (this one included) holds the lock on `file`; false when there is no such file. */
  static async isHeld(file: string): Promise<boolean> {
    const key = path.resolve(file);
    if (heldHere.has(key)) return true;
    if (!fs.existsSync(key)) return false;
    const taken = await FileLock.tryAcquire(key);
    taken?.release();
    return taken === null;
  }

  release(): void {
    if (this.database === null) return;
    this.database.closeSync();
    this.database = null;
    heldHere.delete(this.file);
  }
}

/** Who holds a lock, as the holder wrote it (host, PID in its own namespace, start time). */
export function describeOwner(): string {
  return `pid ${process.pid} on ${os.hostname()}, started ${new Date().toISOString()}`;
}

export function readOwner(file: string): string {
  try {
    return fs.readFileSync(ownerFile(file), 'utf8').trim() || 'a process that wrote no details';
  } catch {
    return 'a process that wrote no details';
  }
}

/** The files a lock leaves beside it (the lock file itself, and the owner's details). */
export function lockFiles(file: string): string[] {
  return [file, ownerFile(file)];
}

const ownerFile = (file: string) => `${file}.owner`;

/** Written whole under a temporary name, then renamed: a reader never sees half a line. */
function writeOwner(file: string, owner: string): void {
  const temporary = `${ownerFile(file)}.${crypto.randomBytes(4).toString('hex')}`;
  fs.writeFileSync(temporary, `${owner}\n`);
  fs.renameSync(temporary, ownerFile(file));
}

/** The lock database opened for writing (its lock taken), or null when another process holds it. */
async function openLockDatabase(file: string): Promise<DuckDBInstance | null> {
  if (!fs.existsSync(file)) await createLockDatabase(file);
  for (let attempt = 1; ; attempt++) {
    try {
      return await DuckDBInstance.create(file, LOCK_DATABASE_OPTIONS);
    } catch (error) {
      const message = messageOf(error);
      if (message.includes('Could not set lock on file')) return null;
      // A lock file of an earlier version (a text file flock(2)ed), or any file that is not a
      // database: nobody holds it the way this version locks, so it is replaced by an empty one.
      if (attempt === 1 && message.includes('not a valid DuckDB database file')) {
        await createLockDatabase(file, { replace: true });
        continue;
      }
      throw new Error(`cannot open the lock file ${file}: ${message}`, { cause: error });
    }
  }
}

/**
 * An empty database made under a temporary name, then put in place whole: DuckDB never opens a
 * half-made lock file (one opened before its header is written reads as "not a valid DuckDB
 * database file"). Without `replace`, a file another process put there first is kept.
 */
async function createLockDatabase(file: string, options: { replace?: boolean } = {}): Promise<void> {
  const temporary = `${file}.new-${crypto.randomBytes(4).toString('hex')}`;
  // DuckDB's errors carry no errno: a place the system refuses to write to (read-only, full) is
  // found by Node first, whose error has the code callers tell those cases by.
  fs.writeFileSync(temporary, '');
  fs.rmSync(temporary);
  try {
    const database = await DuckDBInstance.create(temporary, LOCK_DATABASE_OPTIONS);
    database.closeSync();
    if (options.replace) {
      fs.renameSync(temporary, file);
    } else {
      try {
        fs.linkSync(temporary, file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
  } finally {
    fs.rmSync(temporary, { force: true });
    fs.rmSync(`${temporary}.wal`, { force: true });
  }
}
