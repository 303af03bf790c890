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

/**
 * An error as it crosses between threads. postMessage's structured clone keeps an Error's message
 * but not its class, its exit code or its system `code`, so a thread sends this record instead
 * and the main thread rebuilds the error from it (`fromCrossing`).
 */
export interface CrossingError {
  name: string;
  message: string;
  stack: string | undefined;
  /** A UserError's exit code; null for anything else (a bug, or a system error the caller translates). */
  exitCode: number | null;
  /** A system error's code (`ENOSPC`, `EISDIR`). */
  code: string | undefined;
  cause: CrossingError | undefined;
}

export function toCrossing(error: unknown): CrossingError {
  if (!(error instanceof Error))
    return { name: 'Error', message: String(error), stack: undefined, exitCode: null, code: undefined, cause: undefined };
  const code = (error as NodeJS.ErrnoException).code;
  return {
    name: error.name,
    message: error.message,
    stack: error.stack,
    exitCode: error instanceof UserError ? error.exitCode : null,
    code: typeof code === 'string' ? code : undefined,
    cause: error.cause === undefined ? undefined : toCrossing(error.cause),
  };
}

/**
 * The error a thread sent, rebuilt: a UserError with its exit code and message as they were, or
 * an Error whose message says where it happened (`where: ...`); either keeps the thread's stack,
 * its code and its causes.
 */
export function fromCrossing(sent: CrossingError, where?: string): Error {
  const cause = sent.cause === undefined ? undefined : fromCrossing(sent.cause);
  const error =
    sent.exitCode !== null
      ? new UserError(sent.message, sent.exitCode, { cause })
      : new Error(where === undefined ? sent.message : `${where}: ${sent.message}`, cause === undefined ? undefined : { cause });
  error.name = sent.name;
  if (sent.stack !== undefined) error.stack = sent.stack;
  if (sent.code !== undefined) (error as NodeJS.ErrnoException).code = sent.code;
  return error;
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
  constructor(
    readonly signal: string,
    afterPublishing = false,
  ) {
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
