/**
 * The one lifecycle of `build` and `prepare` (build/index.ts, build/prepare.ts): the inputs
 * opened, then the output claimed (every refusal that needs no work comes before any work), a
 * scratch database, the command's list of stages run in it (build/stages/), the database closed and
 * its folder removed, then the command's own step that puts its output in place. A failure is
 * translated once (errors.ts); whatever happened, what the command holds is released, the last
 * taken first. Signals stop it in any step (interruption.ts).
 */
import fsp from 'node:fs/promises';
import type { BuildConfig } from './config.ts';
import { openScratchDatabase, type Database } from './database.ts';
import { failureOf } from './errors.ts';
import { Progress } from '../core/progress.ts';
import type { OpenedInput } from './input/read.ts';
import { Interruption } from './interruption.ts';
import type { ListOutcome, StageValues } from './stages/stage.ts';

/** What each step of a command is handed. */
interface Run {
  readonly progress: Progress;
  readonly interruption: Interruption;
  /** Registers what to release when the command ends, whatever happened (the last registered, first). */
  release(step: () => unknown): void;
  /** Registers what a forced exit removes at once (synchronous and quick: it runs just before the process exits; the last registered, first). */
  onForcedExit(step: () => void): void;
}

export interface Command<Result> {
  /** Names the scratch database (`build.duckdb`, `prepare.duckdb`). */
  name: 'build' | 'prepare';
  /** The options: the progress's mode, DuckDB's threads and memory limit, `--out` (also in a failure's words). */
  options: BuildConfig;
  /** Opens what the command reads: the exports (none for a prepared folder), named in a failure to read them. */
  open(run: Run): Promise<OpenedInput[]>;
  /** Claims the output; the scratch folder (made) where the database goes. */
  claim(run: Run): Promise<string>;
  /**
   * Runs the command's list of stages in `db`. `fullNight`: why the list before could not go on
   * (an incremental night), null the first time: the list then runs as a full night, which never
   * needs another.
   */
  runStages(db: Database, fullNight: string | null, run: Run): Promise<ListOutcome>;
  /** Ends what needs the scratch folder still (a packed tree's record, the manifest). */
  finish?(values: Partial<StageValues>, run: Run): Promise<void>;
  /** Puts the output in place, once DuckDB and its files are gone, and sums the run up. */
  goLive(values: Partial<StageValues>, run: Run): Promise<Result>;
}

export async function runCommand<Result>(command: Command<Result>): Promise<Result> {
  const { options } = command;
  const progress = new Progress(options.progress);
  const releases: (() => unknown)[] = [];
  const forcedExit: (() => void)[] = [];
  let inputs: OpenedInput[] = [];
  let db: Database | null = null;
  const interruption = new Interruption(() => {
    for (const step of [...forcedExit].reverse()) step();
  });
  interruption.onInterrupt(() => db?.connection.interrupt());
  const run: Run = {
    progress,
    interruption,
    release: (step) => releases.push(step),
    onForcedExit: (step) => forcedExit.push(step),
  };
  try {
    inputs = await command.open(run);
    const scratch = await command.claim(run);
    db = await openScratchDatabase(scratch, command.name, options);
    let outcome = await command.runStages(db, null, run);
    if ('fullNightNeeded' in outcome) {
      // Rare (docs/incremental-nights.md): the night is prepared again, whole, from a new database.
      db.close();
      db = null;
      await fsp.rm(scratch, { recursive: true, force: true });
      await fsp.mkdir(scratch, { recursive: true });
      db = await openScratchDatabase(scratch, command.name, options);
      outcome = await command.runStages(db, outcome.fullNightNeeded, run);
      if ('fullNightNeeded' in outcome) throw new Error(`a full night found it needs to be full (${outcome.fullNightNeeded})`);
    }
    const { values } = outcome;
    await command.finish?.(values, run);
    // The inputs are read no more: DuckDB's files go before the output goes live.
    db.close();
    db = null;
    await fsp.rm(scratch, { recursive: true, force: true });
    return await command.goLive(values, run);
  } catch (error) {
    progress.end();
    throw failureOf(error, { signal: interruption.signal, settings: options, outDir: options.outDir, inputs });
  } finally {
    db?.close();
    for (const step of [...releases].reverse()) await step();
    interruption.dispose();
  }
}
