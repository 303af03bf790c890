/**
 * What `npm pack` (and `npm publish`) ship besides the sources' JavaScript: run by the `prepack`
 * script. Compiles the TypeScript into dist/ (tsconfig.build.json: JavaScript and type
 * declarations, `.ts` imports rewritten to `.js`; the entries `wallet-snapshot/worker` and
 * `wallet-snapshot/client` among them, the client's validation module beside it), copies the WebAssembly writer beside its
 * module, and bundles what the repository bundles from its sources at run time: the explorer page
 * (dist/explorer/bundle.json) and the Worker for `serve --runtime workerd`
 * (dist/preview/worker-bundle.js). The package then runs with Node alone: no tsx, no esbuild.
 * docs/decisions.md, "Sources or compiled".
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { packedBundleText } from '../build/write/explorer.ts';
import { bundleExplorerSources } from '../build/write/explorer-from-sources.ts';
import { bundleWorkerSources } from '../preview/worker-from-sources.ts';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(ROOT, 'dist');

fs.rmSync(DIST, { recursive: true, force: true });
const tsc = spawnSync(
  process.execPath,
  [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', path.join(ROOT, 'tsconfig.build.json')],
  { stdio: 'inherit' },
);
if (tsc.status !== 0) throw new Error(`tsc -p tsconfig.build.json failed (status ${tsc.status})`);
for (const module of ['build/write/document-bytes.wasm', 'tree/number-texts.wasm'])
  fs.copyFileSync(path.join(ROOT, module), path.join(DIST, module));
fs.mkdirSync(path.join(DIST, 'explorer'));
fs.writeFileSync(path.join(DIST, 'explorer/bundle.json'), packedBundleText(await bundleExplorerSources()));
fs.writeFileSync(path.join(DIST, 'preview/worker-bundle.js'), await bundleWorkerSources(path.join(ROOT, 'server/worker.ts')));
process.stdout.write(`dist/ written: ${fs.readdirSync(DIST, { recursive: true }).length} entries\n`);
