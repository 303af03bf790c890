/**
 * `npm start` as a process manager or an IDE runs it: its PID is npm's, and SIGTERM to that PID
 * must stop the server (the script execs the server in place of its shell, and npm forwards the
 * signal to it), leaving no process behind and the port free; during its build, npm's shell dies
 * of the signal without passing it on, and the build stops by itself (core/signals.ts).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/process.ts';
import { signalAndWatch } from '../helpers/process-tree.ts';

test('SIGTERM to npm start stops the server it started', async () => {
  const npm = spawn('npm', ['start', '--silent', '--', '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    let text = '';
    npm.stdout.on('data', (data) => {
      text += data;
      const match = /serving \S+ at (http:\/\/\S+)/.exec(text);
      if (match) resolve(match[1]!);
    });
    npm.once('exit', (code) => reject(new Error(`npm start exited (${code}) before serving: ${text}`)));
  });
  assert.is((await fetch(`${url}/v1/seasons`)).status, 200);
  const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
  npm.kill('SIGTERM');
  await exited;
  // The server answered until the signal; once npm is gone, nothing listens on its port.
  for (let attempt = 0; ; attempt++) {
    const refused = await fetch(`${url}/v1/seasons`).then(
      () => false,
      () => true,
    );
    if (refused) break;
    assert.ok(attempt < 50, 'the server still answers after npm start was stopped');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
});

test('SIGTERM to npm start during its build stops the build, and the server never starts', async () => {
  const out = path.join(ROOT, 'public');
  const before = fs.existsSync(out) ? fs.readlinkSync(out) : null;
  const npm = spawn('npm', ['start', '--', '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const { tree: processes, output } = await signalAndWatch(npm, (text) => /check values/.test(text), 'SIGTERM', 8_000);
  assert.ok(
    [...processes.values()].some((command) => command.includes('wallet-snapshot.js build')),
    [...processes.values()].join('\n'),
  );
  assert.not.match(output, /serving /);
  // The interrupted build left the previous tree in place.
  assert.is(fs.existsSync(out) ? fs.readlinkSync(out) : null, before);
});

test.run();
