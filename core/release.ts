/** This release's version, from the package's own manifest (beside the sources, or above dist/). */
import fs from 'node:fs';

function packageManifest(): URL {
  const beside = new URL('../package.json', import.meta.url);
  return fs.existsSync(beside) ? beside : new URL('../../package.json', import.meta.url);
}

/** The package's manifest: its version, and the devDependencies it is tested with (init names wrangler's). */
export const PACKAGE_MANIFEST = JSON.parse(fs.readFileSync(packageManifest(), 'utf8')) as {
  version: string;
  devDependencies?: Record<string, string>;
};

export const RELEASE: string = PACKAGE_MANIFEST.version;
