/**
 * What the CLI says to a user of the installed package: `verify --dir` of a folder that is not
 * there says so, as build and serve do, and writes no summary; every command's `--help` points at
 * what the installed package holds (`wallet-snapshot/summaries`, its docs/), never at a source
 * file it does not ship.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { buildCommand } from '../cli/build.ts';
import { initCommand } from '../cli/init.ts';
import { prepareCommand } from '../cli/prepare.ts';
import { publishCommand } from '../cli/publish.ts';
import { serveCommand } from '../cli/serve.ts';
import { verifyCommand } from '../cli/verify.ts';
import { UserError } from '../core/errors.ts';
import * as summaries from '../schemas/summaries.ts';
import { tempDir, thrown } from './helpers/fixtures.ts';
import { ROOT } from './helpers/process.ts';

test('verify --dir of a folder that does not exist: exit 1 saying so (as build and serve do), no summary written', async () => {
  const missing = path.join(tempDir(), 'nope');
  const summary = path.join(tempDir(), 'verify.json');
  const refusal = await thrown(() =>
    verifyCommand().exitOverride().parseAsync(['--dir', missing, '--summary-json', summary, '--progress', 'quiet'], { from: 'user' }),
  );
  assert.instance(refusal, UserError);
  assert.is((refusal as UserError).exitCode, 1);
  assert.is(
    (refusal as UserError).message,
    `tree directory ${missing} does not exist (set it with --dir DIR: the --out of wallet-snapshot build)`,
  );
  assert.not.ok(fs.existsSync(summary));
});

/** What the package ships (package.json `files`), as paths a help text may name. */
const shipped = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { files: string[] }).files;

test("every command's --help names only what the installed package holds: the summaries' schemas by their export, docs/ pages that exist", () => {
  const commands: Command[] = [buildCommand(), prepareCommand(), verifyCommand(), serveCommand(), publishCommand(), initCommand()];
  for (const command of commands) {
    const help = command.helpInformation().replace(/\s+/g, ' ');
    const name = command.name();
    // A path with a folder (a file init writes, such as worker.js, is not one of the package's).
    for (const file of help.match(/[\w.-]+\/[\w./-]+\.(?:ts|js|md)\b/g) ?? []) {
      assert.ok(
        shipped.some((folder) => file.startsWith(folder)) && fs.existsSync(path.join(ROOT, file)),
        `${name} --help names ${file}, which the installed package does not hold`,
      );
    }
    if (!help.includes('--summary-json')) continue;
    const schema = /its schema: (\w+) of wallet-snapshot\/summaries; docs\/cli\.md/.exec(help)?.[1];
    assert.ok(schema, `${name} --help: ${help}`);
    assert.ok(schema in summaries, `${name} --help names ${schema}, which wallet-snapshot/summaries does not export`);
    assert.match(schema!, new RegExp(`^${name[0]!.toUpperCase()}${name.slice(1)}SummaryJsonSchema$`));
  }
});

test.run();
