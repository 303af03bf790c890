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

/** Exit status of a build that ran out of DuckDB's memory limit: the input is fine, the settings are not. */
const EXIT_OUT_OF_MEMORY = 3;

/**
 * DuckDB's "Out of Memory Error" means its `--memory-limit` was too small for a statement
 * (some operators cannot spill all of their state), not a bug and not bad input: say which
 * settings to change.
 */
export function outOfMemory(error: unknown, settings: { memoryLimit: string; threads: number }): UserError | null {
  const message = error instanceof Error ? error.message : String(error);
  if (!isOutOfMemory(message)) return null;
  return new UserError(
    `DuckDB ran out of its memory limit (--memory-limit ${settings.memoryLimit}, --threads ${settings.threads}): ${message.split('\n')[0]}; ` +
      'raise --memory-limit or lower --threads; the previous tree was left untouched',
    EXIT_OUT_OF_MEMORY,
  );
}

export const isOutOfMemory = (message: string) => /\bOut of Memory Error\b/.test(message);
