/**
 * What bounds one call of the client: the caller's signals (the client's and the call's) and its
 * timeout, over the whole call (every attempt, every body read, every wait between retries). The
 * call's own work is given one signal that aborts on either, so that its request's connection is
 * closed; the call itself settles at once, whatever its work is doing at that moment.
 */

/** setTimeout's largest delay: a longer timeout is no timer at all (it would fire at once). */
const LONGEST_TIMER = 2 ** 31 - 1;

export interface CallLimits {
  /** Milliseconds for the whole call; `Infinity`: none. */
  timeout: number;
  /** The caller's signals: the call stops when any of them aborts. */
  signals: AbortSignal[];
}

/** A timeout as given to `createClient` or a call: a number of milliseconds above 0, or Infinity. */
export function checkedTimeout(value: unknown, where: string): number {
  if (typeof value !== 'number' || Number.isNaN(value) || value <= 0) {
    throw new TypeError(`${where} is ${String(value)}; expected milliseconds, a number above 0 (Infinity: no timeout)`);
  }
  return value;
}

/** The error an aborted call rejects with: the signal's reason, as `fetch` does (by default the platform's AbortError). */
function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/**
 * Runs `work` with a signal that aborts when a caller's signal does or the timeout passes, and
 * settles with the first of: `work`'s outcome, the caller's abort (its reason), or `timedOut()`.
 */
export function withinLimits<T>(limits: CallLimits, work: (signal: AbortSignal) => Promise<T>, timedOut: () => unknown): Promise<T> {
  const aborted = limits.signals.find((signal) => signal.aborted);
  if (aborted) return Promise.reject(abortReason(aborted));
  const controller = new AbortController();
  let stop: (reason: unknown) => void = () => {};
  const stopped = new Promise<never>((_, reject) => {
    stop = reject;
  });
  const end = (reason: unknown) => {
    if (controller.signal.aborted) return;
    controller.abort(reason);
    stop(reason);
  };
  const cleanups: (() => void)[] = [];
  for (const signal of limits.signals) {
    const listener = () => end(abortReason(signal));
    signal.addEventListener('abort', listener, { once: true });
    // A long-lived signal (an app's, the client's) must not keep a listener per finished call.
    cleanups.push(() => signal.removeEventListener('abort', listener));
  }
  if (limits.timeout <= LONGEST_TIMER) {
    const timer = setTimeout(() => end(timedOut()), limits.timeout);
    cleanups.push(() => clearTimeout(timer));
  }
  return Promise.race([work(controller.signal), stopped]).finally(() => {
    for (const cleanup of cleanups) cleanup();
  });
}

/** Waits `ms`, or less when `signal` aborts (the caller then stops on its own). */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
