/**
 * Something the user can fix: bad input data, a bad flag, a missing file. The CLI prints only the
 * message (no stack) and exits with `exitCode`. Anything else that is thrown is a bug.
 */
export class UserError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 1) {
    super(message);
    this.name = 'UserError';
    this.exitCode = exitCode;
  }
}

/** The text of anything thrown, Error or not. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Thrown when the build is interrupted (SIGINT, SIGTERM, SIGHUP) so that cleanup runs before exit.
 * Exit 130 for Ctrl-C and SIGTERM, 129 for SIGHUP (128 + its number, as a shell reports it).
 */
export class InterruptedError extends UserError {
  constructor(readonly signal: string, afterPublishing = false) {
    super(
      afterPublishing
        ? `interrupted by ${signal} after the new tree was published (older trees beside it are removed by the next build)`
        : `interrupted by ${signal}; the previous tree was left untouched`,
      signal === 'SIGHUP' ? 129 : 130,
    );
    this.name = 'InterruptedError';
  }
}

/** Exit status of a build refused because another build holds its --out (EX_TEMPFAIL: try again later). */
export const EXIT_BUSY = 75;

/** Exit status of a build that ran out of DuckDB's memory limit: the input is fine, the settings are not. */
const EXIT_OUT_OF_MEMORY = 3;

/**
 * DuckDB's "Out of Memory Error" means its `--memory-limit` was too small for a statement
 * (some operators cannot spill all of their state), not a bug and not bad input: say which
 * settings to change.
 */
export function outOfMemory(error: unknown, settings: { memoryLimit: string; threads: number }): UserError | null {
  const message = messageOf(error);
  if (!isOutOfMemory(message)) return null;
  return new UserError(
    `DuckDB ran out of its memory limit (--memory-limit ${settings.memoryLimit}, --threads ${settings.threads}): ${message.split('\n')[0]}; ` +
      'raise --memory-limit or lower --threads; the previous tree was left untouched',
    EXIT_OUT_OF_MEMORY,
  );
}

export const isOutOfMemory = (message: string) => /\bOut of Memory Error\b/.test(message);

/** Exit status of a build that could not write its files: the input is fine, the disk is not. */
export const EXIT_CANNOT_WRITE = 4;

/**
 * Writes the system refused for lack of room or a read-only disk, as Node (error codes) and DuckDB
 * (the system's texts) report them. Only conditions that a read cannot cause, so that an input
 * file that cannot be read is never reported as a full disk.
 */
const WRITE_REFUSED = /\b(ENOSPC|EFBIG|EDQUOT|EROFS)\b|No space left on device|File too large|Disk quota exceeded|Read-only file system/;

export const isWriteRefused = (message: string) => WRITE_REFUSED.test(message);

/**
 * The new tree, or DuckDB's scratch files beside it, could not be written (disk full, a file
 * size limit, a read-only disk): not a bug and not bad input.
 */
export function cannotWrite(error: unknown, outDir: string): UserError | null {
  // A user error has said what is wrong already (and may quote input values that read like these).
  if (error instanceof UserError) return null;
  const message = messageOf(error);
  if (!isWriteRefused(message)) return null;
  return new UserError(
    `could not write the new tree or its scratch files beside ${outDir} (${message.split('\n')[0]}); ` +
      'free some space there or move --out; the previous tree was left untouched',
    EXIT_CANNOT_WRITE,
  );
}
