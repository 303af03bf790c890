/**
 * Ctrl-C, SIGTERM and SIGHUP during a build. The first signal aborts it: each stage checks the
 * abort signal, DuckDB's running statement is interrupted, and the build unwinds, removing its
 * work. A read that cannot be interrupted (DuckDB blocked on a hung mount) must not make the
 * build deaf: after a short grace the work is moved aside for the next build to remove, and the
 * process exits. A second signal exits at once.
 */
import { InterruptedError } from '../core/errors.ts';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
/** Long enough for DuckDB to stop a statement and the threads to end, short enough to feel prompt. */
const GRACE_MS = 3_000;

export class Interruption {
  private readonly controller = new AbortController();
  readonly signal = this.controller.signal;
  private readonly stoppers = new Set<() => void>();
  private published = false;
  private readonly handler = (signal: NodeJS.Signals) => this.receive(signal);

  /** `forceCleanup` must be synchronous and quick: it runs just before a forced exit. */
  constructor(private readonly forceCleanup: () => void) {
    for (const signal of SIGNALS) process.on(signal, this.handler);
  }

  /** Something to stop when the build is interrupted (a DuckDB statement); returns its removal. */
  onInterrupt(stop: () => void): () => void {
    this.stoppers.add(stop);
    return () => this.stoppers.delete(stop);
  }

  /** From here on an interruption no longer leaves the previous tree (the new one is live). */
  markPublished(): void {
    this.published = true;
  }

  throwIfInterrupted(): void {
    if (this.signal.aborted) throw this.signal.reason;
  }

  /** Stops listening; a signal after the build has ended gets Node's default behaviour. */
  dispose(): void {
    for (const signal of SIGNALS) process.off(signal, this.handler);
  }

  private receive(signal: NodeJS.Signals): void {
    if (this.signal.aborted) {
      process.stderr.write(`wallet-snapshot: ${signal} again: exiting at once (the next build removes what this one leaves)\n`);
      this.dieBy(signal);
      return;
    }
    const reason = new InterruptedError(signal, this.published);
    this.controller.abort(reason);
    for (const stop of this.stoppers) {
      try {
        stop();
      } catch {
        // Already finished: nothing to stop.
      }
    }
    setTimeout(() => {
      try {
        this.forceCleanup();
      } finally {
        process.stderr.write(
          `wallet-snapshot: ${reason.message} (the build did not stop within ${GRACE_MS / 1000} s: a read may be blocked; exiting)\n`,
        );
        this.dieBy(signal);
      }
    }, GRACE_MS).unref();
  }

  /**
   * Ends the process by the signal itself, with its default action: process.exit() waits for
   * DuckDB's threads, and one blocked in a read never returns. A shell then reports 128 + the
   * signal's number (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP).
   */
  private dieBy(signal: NodeJS.Signals): void {
    this.dispose();
    process.kill(process.pid, signal);
    // Should the signal be blocked or ignored by whoever started us.
    setTimeout(() => process.kill(process.pid, 'SIGKILL'), 1_000).unref();
  }
}
