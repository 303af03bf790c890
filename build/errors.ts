/**
 * The build's own failures translated into errors a user can act on: DuckDB's memory limit and
 * a disk that refuses the writes are neither bad input nor bugs.
 */
import { EXIT_CANNOT_WRITE, EXIT_OUT_OF_MEMORY, UserError, isOutOfMemory, isWriteRefused, messageOf } from '../core/errors.ts';
import { inputReadError, type OpenedInput } from './input/read.ts';

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
    { cause: error },
  );
}

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
    { cause: error },
  );
}

/**
 * A failed build or prepare as its user hears it, the one translation both use: the signal that
 * stopped it (DuckDB reports an interrupted query as its own error), DuckDB's memory limit, a disk
 * that refused the writes, an input that cannot be read; any other error as it is.
 */
export function failureOf(
  error: unknown,
  run: { signal: AbortSignal; settings: { memoryLimit: string; threads: number }; outDir: string; inputs: OpenedInput[] },
): unknown {
  if (run.signal.aborted) return run.signal.reason;
  return outOfMemory(error, run.settings) ?? cannotWrite(error, run.outDir) ?? inputReadError(run.inputs, error) ?? error;
}
