/**
 * The documented commands that start long-running processes (`npx wallet-snapshot serve`,
 * `npm run bench`; `npm start` in test/slow/npm-start.test.ts) stop with every process under them
 * on SIGTERM sent to the PID the user started, which is npm's. npm forwards the signal to its
 * `sh -c`, which dies of it without passing it on: the CLI and the bench notice their parent is
 * gone and stop (core/signals.ts, stopWhenOrphaned). Each test records the whole process tree
 * under npm's PID before the signal and then requires every one of those processes to be gone.
 *
 * A SIGKILL to `serve --runtime workerd` itself still ends its workerd: the kernel kills it
 * (preview/workerd-lifetime.ts).
 *
 * Not SIGINT: dash (Debian's and Ubuntu's /bin/sh) holds a SIGINT sent to it until its child has
 * exited, so a SIGINT to npx's PID stops nothing (docs/reliability.md). Ctrl-C in a terminal
 * signals the whole foreground group, the server included.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CLI, ROOT } from '../helpers/process.ts';
import { tempDir } from '../helpers/fixtures.ts';
import { signalAndWatch } from '../helpers/process-tree.ts';

/** A folder where the package is installed as a dependency: node_modules/wallet-snapshot and its bin. */
function installedApp(): string {
  const app = tempDir('ws-orphans-app-');
  fs.writeFileSync(path.join(app, 'package.json'), '{"name": "app", "private": true}\n');
  fs.mkdirSync(path.join(app, 'node_modules/.bin'), { recursive: true });
  fs.symlinkSync(ROOT, path.join(app, 'node_modules/wallet-snapshot'));
  fs.symlinkSync('../wallet-snapshot/bin/wallet-snapshot.js', path.join(app, 'node_modules/.bin/wallet-snapshot'));
  return app;
}

const tree = tempDir('ws-orphans-tree-');
const built = spawnSync(process.execPath, [CLI, 'build', '--out', path.join(tree, 'public')], { cwd: ROOT, encoding: 'utf8' });
if (built.status !== 0) throw new Error(`build of the sample failed:\n${built.stderr}`);

test('SIGTERM to npx wallet-snapshot serve stops the server: nothing is left and the port is free', async () => {
  const app = installedApp();
  const npx = spawn('npx', ['wallet-snapshot', 'serve', '--dir', path.join(tree, 'public'), '--port', '0'], {
    cwd: app,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const { lastGoneMs, tree: processes, output } = await signalAndWatch(npx, (text) => /serving \S+ at http/.test(text), 'SIGTERM', 5_000);
  assert.ok(
    [...processes.values()].some((command) => command.includes('wallet-snapshot serve')),
    [...processes.values()].join('\n'),
  );
  const url = /serving \S+ at (http:\/\/\S+)/.exec(output)![1]!;
  assert.ok(
    await fetch(`${url}/v1/seasons`).then(
      () => false,
      () => true,
    ),
    'the port still answers',
  );
  process.stderr.write(`  (the server was gone ${lastGoneMs} ms after npx exited)\n`);
});

test('SIGTERM to npm run bench stops the bench and every child it started', async () => {
  const data = tempDir('ws-orphans-bench-');
  const npm = spawn(
    'npm',
    ['run', 'bench', '--', '--wallets', '30', '--shard', '1/2', '--data', data, '--store', path.join(data, 'store')],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  // Once the build runs, the S3 server runs too: the bench has two children of its own to stop.
  const { lastGoneMs, tree: processes } = await signalAndWatch(
    npm,
    (text) => /\[bench\] started pid \d+: build/.test(text),
    'SIGTERM',
    15_000,
  );
  const commands = [...processes.values()];
  assert.ok(
    commands.some((command) => command.includes('bench/run.ts')),
    commands.join('\n'),
  );
  assert.ok(
    commands.some((command) => command.includes('s3rver')),
    commands.join('\n'),
  );
  assert.ok(
    commands.some((command) => command.includes('wallet-snapshot.js build')),
    commands.join('\n'),
  );
  process.stderr.write(`  (the bench and its children were gone ${lastGoneMs} ms after npm exited)\n`);
});

test('SIGKILL to serve --runtime workerd alone: its workerd ends with it, the kernel kills it (Linux, setpriv)', async () => {
  // Not through npx: the SIGKILL goes to the CLI itself, which then runs no code to stop workerd.
  const serve = spawn(process.execPath, [CLI, 'serve', '--runtime', 'workerd', '--dir', path.join(tree, 'public'), '--port', '0'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const { lastGoneMs, tree: processes } = await signalAndWatch(serve, (text) => /serving \S+ at http/.test(text), 'SIGKILL', 5_000);
  assert.ok(
    [...processes.values()].some((command) => /\bworkerd serve\b/.test(command)),
    [...processes.values()].join('\n'),
  );
  process.stderr.write(`  (workerd was gone ${lastGoneMs} ms after serve was killed)\n`);
});

test.run();
