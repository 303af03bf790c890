/**
 * workerd, Miniflare's child, made to end with the process that started it, even when that process
 * is killed by SIGKILL (a killed process runs no code that could stop its children). On Linux with
 * util-linux's `setpriv`, Miniflare starts workerd through a two-line script that execs it under
 * `setpriv --pdeathsig KILL`: the kernel kills workerd when its parent ends. Elsewhere (macOS, an
 * image without setpriv, a temporary folder mounted noexec) workerd stops only when serve stops
 * on a signal it can catch (docs/reliability.md). A MINIFLARE_WORKERD_PATH the user set is left
 * as it is.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

let settled = false;

/** Points Miniflare at the script, once per process; later calls do nothing. */
export function workerdEndsWithThisProcess(): void {
  if (settled) return;
  settled = true;
  if (process.platform !== 'linux' || process.env.MINIFLARE_WORKERD_PATH) return;
  const script = pdeathsigScript(miniflareWorkerd(), os.tmpdir());
  if (script) process.env.MINIFLARE_WORKERD_PATH = script;
}

/** The workerd binary Miniflare itself would start: its own dependency's default export. */
export function miniflareWorkerd(): string {
  const fromMiniflare = createRequire(createRequire(import.meta.url).resolve('miniflare'));
  return (fromMiniflare('workerd') as { default: string }).default;
}

/**
 * Writes the script that execs `workerd` under `setpriv --pdeathsig KILL` into a folder of its own
 * under `temporary`, removed when this process exits. Null (and nothing left) when the script does
 * not run workerd: no setpriv on the PATH, a folder mounted noexec, a setpriv that refuses.
 */
export function pdeathsigScript(workerd: string, temporary: string, setpriv = 'setpriv'): string | null {
  const folder = fs.mkdtempSync(path.join(temporary, 'wallet-snapshot-workerd-'));
  const script = path.join(folder, 'workerd');
  fs.writeFileSync(script, `#!/bin/sh\nexec ${shellWord(setpriv)} --pdeathsig KILL -- ${shellWord(workerd)} "$@"\n`, { mode: 0o700 });
  const remove = () => fs.rmSync(folder, { recursive: true, force: true });
  // Used only once it has run workerd (`--version`, about 40 ms): a failure here must not cost
  // serve its workerd.
  if (spawnSync(script, ['--version'], { stdio: 'ignore', timeout: 10_000 }).status !== 0) {
    remove();
    return null;
  }
  process.once('exit', remove);
  return script;
}

function shellWord(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
