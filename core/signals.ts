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

/** How often an npm-started process looks at its parent: the delay before it notices being orphaned. */
const ORPHAN_POLL_MS = 100;

/**
 * `npx wallet-snapshot serve`, `npm start` and `npm run bench` put two processes between the PID
 * a user (or a process manager) started and this one: npm, which forwards SIGTERM and SIGINT to
 * its child, and that child, `sh -c ...`, which dies of the signal without passing it on. This
 * process is then left running with another parent (init or a subreaper). So a process started
 * by npm watches its parent and, once the parent has changed, sends itself SIGTERM: every command
 * then stops exactly as it does on SIGTERM (a build unwinds, a server closes, the bench stops its
 * children). Started otherwise (`node …/wallet-snapshot.js serve &` under nohup), nobody stands
 * between the user and this process, and it outlives its shell as before.
 */
export function stopWhenOrphaned(env: NodeJS.ProcessEnv = process.env): void {
  if (env.npm_command === undefined && env.npm_lifecycle_event === undefined) return;
  const parent = process.ppid;
  // Already orphaned, or the first process of a PID namespace: there is no parent to lose.
  if (parent <= 1) return;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    process.kill(process.pid, 'SIGTERM');
  }, ORPHAN_POLL_MS);
  // Looking never keeps a process alive that has finished its work.
  timer.unref();
}
