/**
 * What every command shares about failure: one error type for what a user can fix, carrying the
 * exit code a CI job acts on, and the exit codes themselves. Anything else thrown is a bug (70).
 */

/** Exit codes, the same for every command (README, "Exit codes"). */
export const EXIT_BAD_INPUT = 1;
export const EXIT_USAGE = 2;
/** DuckDB ran out of its memory limit: the input is fine, the settings are not. */
export const EXIT_OUT_OF_MEMORY = 3;
/** The disk refused the writes (full, a quota, read-only): the input is fine, the disk is not. */
export const EXIT_CANNOT_WRITE = 4;
/** The store or the network still failed after every retry: rerunning resumes. */
export const EXIT_STORAGE = 5;
export const EXIT_INTERNAL = 70;
/** Another build holds --out (EX_TEMPFAIL: try again later). */
export const EXIT_BUSY = 75;
/** 128 + the signal's number, as a shell reports it. */
export const EXIT_HANGUP = 129;
export const EXIT_INTERRUPTED = 130;

/**
 * Something the user can fix: bad input data, a bad flag, a missing file. The CLI prints only the
 * message (no stack) and exits with `exitCode`.
 */
export class UserError extends Error {
  readonly exitCode: number;
  /**
   * `cause`: the DuckDB, file-system or S3 error this refusal was made from, kept so that
   * `--debug` can show its own words (`Error.cause`).
   */
  constructor(message: string, exitCode = EXIT_BAD_INPUT, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'UserError';
    this.exitCode = exitCode;
  }
}

/** The text of anything thrown, Error or not. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Thrown when a build is interrupted (SIGINT, SIGTERM, SIGHUP) so that cleanup runs before exit.
 * Exit 130 for Ctrl-C and SIGTERM, 129 for SIGHUP.
 */
export class InterruptedError extends UserError {
  constructor(readonly signal: string, afterPublishing = false) {
    super(
      afterPublishing
        ? `interrupted by ${signal} after the new tree was published (older trees beside it are removed by the next build)`
        : `interrupted by ${signal}; the previous tree was left untouched`,
      signal === 'SIGHUP' ? EXIT_HANGUP : EXIT_INTERRUPTED,
    );
    this.name = 'InterruptedError';
  }
}

export const isOutOfMemory = (message: string) => /\bOut of Memory Error\b/.test(message);

/**
 * Writes the system refused for lack of room or a read-only disk, as Node (error codes) and DuckDB
 * (the system's texts) report them. Only conditions that a read cannot cause, so that an input
 * file that cannot be read is never reported as a full disk.
 */
const WRITE_REFUSED = /\b(ENOSPC|EFBIG|EDQUOT|EROFS)\b|No space left on device|File too large|Disk quota exceeded|Read-only file system/;

export const isWriteRefused = (message: string) => WRITE_REFUSED.test(message);
