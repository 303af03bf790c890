/**
 * Faults a test injects into a build running as a real process, to stop it exactly where a power
 * cut or a hung mount would. They are a parameter of the build (`buildSnapshot`'s runtime), which
 * only the test harness fills (test/helpers/cli-with-faults.ts, through the CLI's `runCli`): no
 * option or environment variable of the product can, and a real run passes none.
 */
export type SwapPoint = 'before-swap' | 'takeover' | 'after-swap';

export interface InjectedFaults {
  /** SIGKILL the build at this point of the swap. */
  killAt?: SwapPoint;
  /** A FIFO no one writes: the first read of the inputs blocks on it. */
  blockingRead?: string;
}

/** A real run's faults: none. */
export const NO_FAULTS: InjectedFaults = Object.freeze({});
