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

/** Thrown when the build is interrupted (SIGINT/SIGTERM) so that cleanup runs before exit. */
export class InterruptedError extends UserError {
  constructor(signal: string) {
    super(`interrupted by ${signal}; the previous tree was left untouched`, 130);
    this.name = 'InterruptedError';
  }
}
