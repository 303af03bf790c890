import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI = path.join(ROOT, 'bin/wallet-snapshot.js');

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real CLI as a child process; `onStderr` may act on progress lines (e.g. send a signal). */
type Watcher = (text: string, child: ReturnType<typeof spawn>) => void;

/**
 * `fileSizeLimit`: the largest file the CLI may write, in blocks of 512 bytes (`ulimit -f`).
 * `env`: variables added to the environment (test hooks). `prefix`: a command that runs the CLI
 * (e.g. `unshare --pid --fork`, another PID namespace).
 */
export function runCli(args: string[], options: { onStderr?: Watcher; onStdout?: Watcher; fileSizeLimit?: number; env?: Record<string, string>; prefix?: string[] } = {}): Promise<Finished & { signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const command = [
      ...(options.prefix ?? []),
      ...(options.fileSizeLimit === undefined
        ? [process.execPath, CLI, ...args]
        : ['/bin/sh', '-c', `ulimit -f ${options.fileSizeLimit} && exec "$0" "$@"`, process.execPath, CLI, ...args]),
    ];
    const child = spawn(command[0]!, command.slice(1), { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...options.env } });
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
