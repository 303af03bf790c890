// Entry of publish's tree-file threads (piscina): the task function from its source through tsx in
// the repository, else compiled (the installed package); then handed to piscina.
// docs/decisions.md, "Sources or compiled".
import fs from 'node:fs';

// tsx is a devDependency, loaded only beside the sources, never by the installed package; named
// through a constant because knip's production check counts every literal import as a run-time one.
const TSX = 'tsx/esm/api';

const source = new URL('./tree-file-task.ts', import.meta.url);
let task;
if (fs.existsSync(source)) {
  const { register } = await import(TSX);
  register();
  task = await import(source.href);
} else {
  task = await import(new URL('./tree-file-task.js', import.meta.url).href);
}

export default task.runTreeFileTask;
export const list = task.runListTask;
