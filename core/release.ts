/** This release's version, from the package's own manifest (beside the sources, or above dist/). */
import fs from 'node:fs';

function packageManifest(): URL {
  const beside = new URL('../package.json', import.meta.url);
  return fs.existsSync(beside) ? beside : new URL('../../package.json', import.meta.url);
}

export const RELEASE: string = (JSON.parse(fs.readFileSync(packageManifest(), 'utf8')) as { version: string }).version;
