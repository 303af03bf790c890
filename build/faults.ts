/**
 * Faults a test injects into a build running as a real process, to stop it exactly where a power
 * cut or a hung mount would: empty in every real run. Only the test harness sets them
 * (test/helpers/cli-with-faults.ts, which then runs the CLI), so no environment variable or option
 * of the product can.
 */
export type SwapPoint = 'before-swap' | 'takeover' | 'after-swap';

export const injectedFaults: {
  /** SIGKILL the build at this point of the swap. */
  killAt?: SwapPoint;
  /** A FIFO no one writes: the first read of the inputs blocks on it. */
  blockingRead?: string;
} = {};
