/**
 * The explorer page of the tree: `index.html` at the root and its script and stylesheet under
 * `explorer/`, bundled with esbuild from the sources in the repository's `explorer/` folder
 * (uPlot and lossless-json included), so the page loads nothing from outside the host.
 * Asset names carry a hash of their content: a CDN may keep them for good, and a night's page
 * never runs with another night's script. The facts no /v1 document states (the last closed day,
 * the example wallet) are written into the page.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import type { TreeWriter } from './tree-writer.ts';
import type { SnapshotMeta } from '../../schemas/meta.ts';

export const EXPLORER_PAGE_FILE = 'index.html';
export const EXPLORER_ASSET_DIR = 'explorer';

const SOURCE_DIR = fileURLToPath(new URL('../../explorer/', import.meta.url));

interface Bundle {
  template: string;
  assets: { file: string; text: string }[];
}

// The sources do not change while a process runs: one bundle serves every build (and every test).
let bundled: Promise<Bundle> | null = null;

async function bundleExplorer(): Promise<Bundle> {
  const result = await esbuild.build({
    entryPoints: [path.join(SOURCE_DIR, 'main.ts')],
    tsconfig: path.join(SOURCE_DIR, 'tsconfig.json'),
    bundle: true,
    format: 'esm',
    target: 'es2022',
    minify: true,
    write: false,
    outdir: path.join(SOURCE_DIR, EXPLORER_ASSET_DIR),
    entryNames: 'app-[hash]',
    assetNames: '[name]-[hash]',
    charset: 'ascii',
    legalComments: 'eof',
    logLevel: 'silent',
  });
  const assets = result.outputFiles.map((output) => ({ file: `${EXPLORER_ASSET_DIR}/${path.basename(output.path)}`, text: output.text }));
  const template = await fs.readFile(path.join(SOURCE_DIR, 'index.html'), 'utf8');
  return { template, assets };
}

export async function writeExplorer(writer: TreeWriter, meta: SnapshotMeta): Promise<void> {
  const { template, assets } = await (bundled ??= bundleExplorer());
  const asset = (extension: string) => {
    const found = assets.find((candidate) => candidate.file.endsWith(extension));
    if (!found) throw new Error(`the explorer bundle has no ${extension} file`);
    return found.file;
  };
  // `<` escaped so that no value can close the script element it sits in.
  const facts = JSON.stringify({ lastClosedDay: meta.lastClosedDay, exampleWallet: meta.exampleWallet }).replace(/</g, '\\u003c');
  const page = template.replace('%SCRIPT%', asset('.js')).replace('%STYLE%', asset('.css')).replace('%FACTS%', facts);
  await writer.write(EXPLORER_PAGE_FILE, page);
  for (const { file, text } of assets) await writer.write(file, text);
}
