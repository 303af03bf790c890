import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI = path.join(ROOT, 'bin/wallet-snapshot.js');
const FAULTS_HARNESS = path.join(ROOT, 'test/helpers/cli-with-faults.ts');

/**
 * What a user's shell has, for npm run as a new user would run it: a PATH (Node and npm), an empty
 * HOME, nothing of this repository; the machine's npm cache, so that the registry's packages are
 * read from it first.
 */
export function userNpmEnv(home: string): Record<string, string> {
  return {
    PATH: process.env.PATH!,
    HOME: home,
    TMPDIR: os.tmpdir(),
    npm_config_cache: spawnSync('npm', ['config', 'get', 'cache'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim(),
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
}

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real CLI as a child process; `onStderr` may act on progress lines (e.g. send a signal). */
type Watcher = (text: string, child: ReturnType<typeof spawn>) => void;

/**
 * `fileSizeLimit`: the largest file the CLI may write, in blocks of 512 bytes (`ulimit -f`).
 * `env`: variables added to the environment. `faults`: faults injected into the build
 * (build/faults.ts). `prefix`: a command that runs the CLI
 * (e.g. `unshare --pid --fork`, another PID namespace).
 */
export function runCli(
  args: string[],
  options: {
    onStderr?: Watcher;
    onStdout?: Watcher;
    fileSizeLimit?: number;
    env?: Record<string, string>;
    prefix?: string[];
    faults?: { killAt?: string; blockingRead?: string };
  } = {},
): Promise<Finished & { signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    // With faults, the CLI runs through the harness that injects them (cli-with-faults.ts).
    const faults = options.faults;
    const cli = faults
      ? [
          '--import',
          'tsx',
          FAULTS_HARNESS,
          ...(faults.killAt ? ['--kill-at', faults.killAt] : []),
          ...(faults.blockingRead ? ['--blocking-read', faults.blockingRead] : []),
          '--',
        ]
      : [CLI];
    const command = [
      ...(options.prefix ?? []),
      ...(options.fileSizeLimit === undefined
        ? [process.execPath, ...cli, ...args]
        : ['/bin/sh', '-c', `ulimit -f ${options.fileSizeLimit} && exec "$0" "$@"`, process.execPath, ...cli, ...args]),
    ];
    const child = spawn(command[0]!, command.slice(1), {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...options.env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (data) => {
      stdout += data;
      options.onStdout?.(stdout, child);
    });
    child.stderr.on('data', (data) => {
      stderr += data;
      options.onStderr?.(stderr, child);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/**
 * Stops a child started with `detached: true` (a process group of its own) and every process
 * under it: SIGTERM to the group lets a server stop its own children (serve's workerd), then
 * SIGKILL to whatever is left after `graceMs`. A SIGKILL to the child alone would leave its
 * children running (docs/reliability.md).
 */
export async function stopGroup(child: ChildProcess, graceMs = 10_000): Promise<void> {
  const exited =
    child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', resolve));
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // The whole group is gone already.
    }
  };
  signalGroup('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
  clearTimeout(timer);
  signalGroup('SIGKILL');
}
