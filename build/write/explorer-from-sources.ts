/**
 * The explorer page bundled from its sources (`explorer/`) with esbuild: used by the repository
 * when it runs from its sources, and by `npm pack` to make the bundle the package ships
 * (explorer.ts). esbuild names nothing here: its own `[hash]` covers the files' paths too, so two
 * checkouts in two folders named the same script differently; each asset is named by a hash of
 * its content alone (explorer.ts's assetFile).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { EXPLORER_SOURCES, assetFile, type ExplorerBundle } from './explorer.ts';

export async function bundleExplorerSources(): Promise<ExplorerBundle> {
  const sourceDir = fileURLToPath(EXPLORER_SOURCES);
  const result = await esbuild.build({
    entryPoints: [path.join(sourceDir, 'main.ts')],
    tsconfig: path.join(sourceDir, 'tsconfig.json'),
    bundle: true,
    format: 'esm',
    target: 'es2022',
    minify: true,
    write: false,
    outdir: path.join(sourceDir, 'bundle'),
    entryNames: 'app',
    charset: 'ascii',
    legalComments: 'eof',
    logLevel: 'silent',
  });
  // One script and one stylesheet (the page's CSS is imported by main.ts): neither names the other,
  // so renaming them breaks no reference.
  const assets = result.outputFiles.map((output) => {
    const { name, ext } = path.parse(output.path);
    return { file: assetFile(name, ext, output.text), text: output.text };
  });
  const template = await fs.readFile(path.join(sourceDir, 'index.html'), 'utf8');
  return { template, assets };
}
