/**
 * Every process the bench starts goes through here, so that it can be measured and so that it
 * stops with the bench: each child is the leader of a process group of its own (a server's own
 * children, e.g. workerd, are in it too), and a SIGTERM or SIGINT to the bench sends SIGTERM to every
 * group still running, waits for them (SIGKILL after a grace period), then exits 130.
 *
 * Measured children are Node processes started with `--import bench/record-usage.mjs`, which
 * writes their own CPU-seconds and peak RSS to a file at exit (no /usr/bin/time needed).
 */
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const USAGE_HOOK = pathToFileURL(path.join(path.dirname(fileURLToPath(import.meta.url)), 'record-usage.mjs')).href;
const GRACE_MS = 10_000;

const running = new Set<ChildProcess>();
// Made with the first measured child (a bench that stops at its options makes none), removed at exit.
let usageFolder: string | null = null;
let usageFiles = 0;

/** What a child process cost, as the child itself measured it (null when it was killed). */
export interface Usage {
  userSeconds: number;
  systemSeconds: number;
  peakRssBytes: number;
}

export interface Measured {
  code: number | null;
  signal: NodeJS.Signals | null;
  wallSeconds: number;
  usage: Usage | null;
  stdout: string;
  stderr: string;
}

export const cpuSeconds = (usage: Usage | null): number | null => (usage === null ? null : usage.userSeconds + usage.systemSeconds);

/** Starts a child in a process group of its own and tracks it until it exits. */
export function startChild(
  name: string,
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; stdio?: StdioOptions } = {},
): ChildProcess {
  const child = spawn(command, args, {
    stdio: options.stdio ?? ['ignore', 'inherit', 'inherit'],
    env: options.env ?? process.env,
    detached: true,
  });
  running.add(child);
  // Named on stderr, so that a user (and the bench's test) can see what a signal has to stop.
  process.stderr.write(`[bench] started pid ${child.pid}: ${name}\n`);
  child.once('exit', () => running.delete(child));
  child.once('error', () => running.delete(child));
  return child;
}

/** The pids of the children still running (for the test that a signal leaves none behind). */
export function runningPids(): number[] {
  return [...running].map((child) => child.pid!).filter((pid) => pid !== undefined);
}

/**
 * Runs `node [nodeArgs] script args` to its end and measures it: wall seconds from here, CPU and
 * peak RSS from the child itself. Its stdout and stderr are passed through and also returned.
 */
export async function runMeasured(name: string, nodeArgs: string[], args: string[], env: NodeJS.ProcessEnv = {}): Promise<Measured> {
  const usage = newUsageFile();
  const started = performance.now();
  const child = startChild(name, process.execPath, ['--import', USAGE_HOOK, ...nodeArgs, ...args], {
    env: { ...process.env, ...env, BENCH_USAGE_FILE: usage.file },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (data: Buffer) => {
    stdout += data;
    process.stdout.write(data);
  });
  // Its progress lines are passed on with the seconds since it started, so that a step stopped
  // half-way (killed, out of memory) still shows where its time went.
  let atLineStart = true;
  child.stderr!.on('data', (data: Buffer) => {
    const text = String(data);
    stderr += text;
    const seconds = `[${((performance.now() - started) / 1000).toFixed(1)}s] `;
    process.stderr.write(text.replace(/^(?=.)/gm, (_match, offset: number) => (offset > 0 || atLineStart ? seconds : '')));
    atLineStart = text.endsWith('\n');
  });
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (exitCode, exitSignal) => resolve([exitCode, exitSignal]));
  });
  return { code, signal, wallSeconds: (performance.now() - started) / 1000, usage: usage.read(), stdout, stderr };
}

/** A server that keeps running while steps are measured: its usage can be read at any moment. */
export interface MeasuredServer {
  child: ChildProcess;
  /** The server's usage so far (it writes it on SIGUSR2). */
  usageNow(): Promise<Usage | null>;
  /** SIGTERM, then its final usage. */
  stop(): Promise<Usage | null>;
}

export function startMeasuredServer(name: string, nodeArgs: string[], args: string[], env: NodeJS.ProcessEnv = {}): MeasuredServer {
  const usage = newUsageFile();
  const child = startChild(name, process.execPath, ['--import', USAGE_HOOK, ...nodeArgs, ...args], {
    env: { ...process.env, ...env, BENCH_USAGE_FILE: usage.file, BENCH_USAGE_ON_SIGNAL: '1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    async usageNow() {
      const before = usage.sequence();
      child.kill('SIGUSR2');
      for (let waited = 0; waited < 5000 && usage.sequence() === before; waited += 20) await sleep(20);
      return usage.read();
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      return usage.read();
    },
  };
}

function newUsageFile() {
  if (usageFolder === null) {
    usageFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'ws-bench-usage-'));
    process.on('exit', removeUsageFolder);
  }
  const file = path.join(usageFolder, `usage-${++usageFiles}.json`);
  const record = (): (Usage & { sequence: number }) | null => {
    try {
      return JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch {
      return null;
    }
  };
  return {
    file,
    sequence: () => record()?.sequence ?? 0,
    read: (): Usage | null => {
      const found = record();
      return found === null
        ? null
        : { userSeconds: found.userSeconds, systemSeconds: found.systemSeconds, peakRssBytes: found.peakRssBytes };
    },
  };
}

function removeUsageFolder(): void {
  if (usageFolder !== null) fs.rmSync(usageFolder, { recursive: true, force: true });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends `signal` to every running child's process group. */
function signalAll(signal: NodeJS.Signals): void {
  for (const child of running) {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // Already gone.
    }
  }
}

/** Stops every child still running: SIGTERM to each group, SIGKILL after the grace period. */
export async function stopAllChildren(): Promise<void> {
  signalAll('SIGTERM');
  const deadline = Date.now() + GRACE_MS;
  while (running.size > 0 && Date.now() < deadline) await sleep(50);
  if (running.size > 0) {
    signalAll('SIGKILL');
    while (running.size > 0 && Date.now() < deadline + 2000) await sleep(50);
  }
}

/**
 * On SIGTERM or SIGINT: stop every child, run `cleanup`, exit 130 (the CLI's code for an interrupt).
 * A second signal while stopping is ignored, so a double Ctrl-C cannot orphan a child.
 */
export function stopChildrenOnSignals(cleanup: () => void = () => {}): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`[bench] ${signal}: stopping ${running.size} child process(es)...\n`);
    void stopAllChildren().finally(() => {
      try {
        cleanup();
      } finally {
        process.exit(130);
      }
    });
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  // A failed step ends the bench, and its children with it (a detached child would outlive it).
  process.on('uncaughtException', (error) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`${error.stack ?? error}\n`);
    void stopAllChildren().finally(() => {
      try {
        cleanup();
      } finally {
        process.exit(1);
      }
    });
  });
}
