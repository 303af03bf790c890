/**
 * The explorer page of the tree: `index.html` at the root and its script and stylesheet under
 * `explorer/`, bundled with esbuild from the sources in the repository's `explorer/` folder
 * (uPlot and lossless-json included), so the page loads nothing from outside the host.
 * Asset names carry a hash of their content (and of nothing else: two checkouts in two folders
 * write the same tree): a CDN may keep them for good, and a night's page never runs with another
 * night's script. The facts no /v1 document states (the last closed day, the example wallet) are
 * written into the page.
 *
 * In the repository the page is bundled from its sources when first needed
 * (explorer-from-sources.ts, esbuild being a devDependency); the installed package has no sources
 * and reads the bundle made at pack time (`npm pack` runs scripts/pack-dist.ts), so that esbuild
 * is not among its run-time dependencies. docs/decisions.md, "Sources or compiled".
 */
import fs from 'node:fs';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { TreeWriter } from './tree-writer.ts';
import type { SnapshotMeta } from '../../schemas/meta.ts';

const EXPLORER_PAGE_FILE = 'index.html';
const EXPLORER_ASSET_DIR = 'explorer';

/** The explorer's sources (the repository): `explorer/` at the root, two folders up. */
export const EXPLORER_SOURCES = new URL('../../explorer/', import.meta.url);
/** The bundle made at pack time, in the package: dist/explorer/bundle.json. */
const PACKED_BUNDLE = new URL('../../explorer/bundle.json', import.meta.url);

/**
 * The bundler of the sources (esbuild, a devDependency): never loaded by the package, which has no
 * sources. Named through a constant because knip's production check follows a literal URL.
 */
const FROM_SOURCES = './explorer-from-sources.ts';

const ExplorerBundleSchema = z.object({
  /** index.html with `%SCRIPT%`, `%STYLE%` and `%FACTS%` to fill. */
  template: z.string(),
  assets: z.array(z.object({ file: z.string(), text: z.string() })),
});
export type ExplorerBundle = z.infer<typeof ExplorerBundleSchema>;

/** An asset's path in the tree: its name, then the first 16 hex digits of its content's sha256. */
export function assetFile(name: string, extension: string, text: string): string {
  const hash = createHash('sha256').update(text).digest('hex').slice(0, 16);
  return `${EXPLORER_ASSET_DIR}/${name}-${hash}${extension}`;
}

/** The bundle as the package carries it (written at pack time). */
export function packedBundleText(bundle: ExplorerBundle): string {
  return `${JSON.stringify(ExplorerBundleSchema.parse(bundle))}\n`;
}

// The sources do not change while a process runs: one bundle serves every build (and every test).
let bundled: Promise<ExplorerBundle> | null = null;

async function loadBundle(): Promise<ExplorerBundle> {
  if (fs.existsSync(new URL('main.ts', EXPLORER_SOURCES))) {
    const fromSources = new URL(FROM_SOURCES, import.meta.url).href;
    const { bundleExplorerSources } = (await import(fromSources)) as { bundleExplorerSources(): Promise<ExplorerBundle> };
    return bundleExplorerSources();
  }
  return ExplorerBundleSchema.parse(JSON.parse(fs.readFileSync(PACKED_BUNDLE, 'utf8')));
}

export async function writeExplorer(writer: TreeWriter, meta: SnapshotMeta): Promise<void> {
  const { template, assets } = await (bundled ??= loadBundle());
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
