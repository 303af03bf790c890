import { setMaxListeners } from 'node:events';
import { EXIT_INTERRUPTED } from './errors.ts';

/**
 * Ctrl-C, SIGTERM and SIGHUP abort the requests in flight; what was under way stays as it was
 * (a publish resumes when run again). A second signal exits at once.
 */
export function abortOnSignals(): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  // Every request in flight listens to the signal.
  setMaxListeners(0, controller.signal);
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  const handler = () => {
    if (controller.signal.aborted) process.exit(EXIT_INTERRUPTED);
    controller.abort();
  };
  for (const name of signals) process.on(name, handler);
  return { signal: controller.signal, dispose: () => signals.forEach((name) => process.off(name, handler)) };
}
