/**
 * Progress on stderr: one self-updating line on a terminal, a plain line every few seconds
 * otherwise (CI logs), nothing when quiet. Stages are timed for the closing summary.
 */
import { formatSeconds } from './format.ts';

/** `auto`: a self-updating line on a terminal, plain lines otherwise. */
export type ProgressMode = 'auto' | 'tty' | 'lines' | 'quiet';

const LINE_INTERVAL_MS = 5_000;
const TTY_INTERVAL_MS = 200;

export class Progress {
  readonly stageSeconds: Record<string, number> = {};
  private stage = '';
  private stageStart = 0;
  private lastPrint = 0;
  private readonly mode: Exclude<ProgressMode, 'auto'>;

  constructor(
    mode: ProgressMode,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {
    this.mode = mode === 'auto' ? (stream.isTTY ? 'tty' : 'lines') : mode;
  }

  /** Starts a stage, closing the previous one. */
  start(stage: string): void {
    this.end();
    this.stage = stage;
    this.stageStart = performance.now();
    this.lastPrint = 0;
    this.print(`${stage}...`, true);
  }

  /** Reports `done` of `total` items of the current stage, with rate and ETA. */
  tick(done: number, total: number, unit: string): void {
    const now = performance.now();
    const interval = this.mode === 'tty' ? TTY_INTERVAL_MS : LINE_INTERVAL_MS;
    if (now - this.lastPrint < interval && done < total) return;
    const seconds = (now - this.stageStart) / 1000;
    const rate = seconds > 0 ? done / seconds : 0;
    const eta = rate > 0 ? Math.max(0, (total - done) / rate) : 0;
    const percent = total > 0 ? Math.floor((done / total) * 100) : 100;
    this.print(`${this.stage}: ${done}/${total} ${unit} (${percent}%), ${Math.round(rate)}/s, ETA ${formatSeconds(eta)}`, false);
  }

  end(): void {
    if (!this.stage) return;
    this.stageSeconds[this.stage] = (performance.now() - this.stageStart) / 1000;
    if (this.mode === 'tty') this.stream.write('\n');
    this.stage = '';
  }

  private print(text: string, always: boolean): void {
    if (this.mode === 'quiet') return;
    if (!always && this.mode === 'lines' && performance.now() - this.lastPrint < LINE_INTERVAL_MS) return;
    this.lastPrint = performance.now();
    if (this.mode === 'tty') this.stream.write(`\r\x1b[2K${text}`);
    else this.stream.write(`${text}\n`);
  }
}
