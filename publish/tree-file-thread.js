// Entry of publish's tree-file threads (piscina): like bin/wallet-snapshot.js, load TypeScript
// through tsx, then hand piscina the task function.
import { register } from 'tsx/esm/api';

register();
const { runTreeFileTask } = await import('./tree-file-task.ts');

export default runTreeFileTask;
