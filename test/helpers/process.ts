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

export function runCli(args: string[], options: { onStderr?: Watcher; onStdout?: Watcher } = {}): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
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
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
