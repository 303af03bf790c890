/**
 * serve's workerd ends with the CLI (preview/workerd-lifetime.ts): the script Miniflare is pointed
 * at runs workerd under `setpriv --pdeathsig KILL`, and a script that cannot run workerd is not
 * used. That a SIGKILL to serve ends workerd: test/slow/orphans.test.ts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { miniflareWorkerd, pdeathsigScript } from '../preview/workerd-lifetime.ts';
import { tempDir } from './helpers/fixtures.ts';

const workerd = miniflareWorkerd();

test('the script runs workerd under setpriv --pdeathsig KILL, in a folder of its own', () => {
  const temporary = tempDir();
  const script = pdeathsigScript(workerd, temporary);
  assert.ok(script, 'no script: this test needs util-linux setpriv on the PATH (Linux)');
  assert.is(path.dirname(path.dirname(script!)), temporary);
  assert.match(fs.readFileSync(script!, 'utf8'), `exec 'setpriv' --pdeathsig KILL -- '${workerd}' "$@"`);
  const version = spawnSync(script!, ['--version'], { encoding: 'utf8' });
  assert.is(version.status, 0, version.stderr);
  assert.match(version.stdout, /^workerd \d{4}-\d{2}-\d{2}/);
});

test('a script that cannot run workerd is not used, and nothing is left of it: a setpriv that refuses, none at all', () => {
  const refusing = path.join(tempDir(), 'setpriv');
  fs.writeFileSync(refusing, '#!/bin/sh\necho "setpriv: refused" >&2\nexit 1\n', { mode: 0o700 });
  for (const setpriv of [refusing, path.join(tempDir(), 'no-such-setpriv')]) {
    const scripts = tempDir();
    assert.is(pdeathsigScript(workerd, scripts, setpriv), null, setpriv);
    assert.equal(fs.readdirSync(scripts), [], setpriv);
  }
});

test.run();
