/**
 * `init`: writes what a programme's own data repository needs (the nightly workflow, the Worker
 * and its wrangler.toml, a .gitignore, a README section), and nothing at all when one of those
 * files is there already, unless told to overwrite (docs/cli.md, "init").
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../core/errors.ts';
import { GITIGNORE, README_BEGIN, README_END, WORKER_ENTRY, readmeSection, wranglerToml } from './files.ts';
import { nightlyWorkflow, shardedWorkflow } from './workflows.ts';

/** A matrix runs at most 256 jobs in one workflow run (GitHub Actions' limit): one per shard. */
export const MAX_INIT_SHARDS = 256;

export const WORKFLOW_PATH = '.github/workflows/nightly.yml';

export interface InitOptions {
  dir: string;
  /** The shard count of a sharded night, or null for one runner. */
  sharded: number | null;
  force: boolean;
}

export interface InitResult {
  dir: string;
  /** Paths relative to `dir`, in the order written. */
  written: string[];
  readme: 'created' | 'appended' | 'replaced';
  /** No package.json in `dir`: the workflow's `npm ci` needs one, with wallet-snapshot in it. */
  missingPackage: boolean;
}

export function initRepository(options: InitOptions): InitResult {
  const dir = path.resolve(options.dir);
  if (options.sharded !== null && (!Number.isInteger(options.sharded) || options.sharded < 2 || options.sharded > MAX_INIT_SHARDS)) {
    throw new UserError(
      `--sharded ${options.sharded}: expected a whole number of shards from 2 to ${MAX_INIT_SHARDS} (one matrix job each; for one runner, leave --sharded out)`,
    );
  }
  if (fs.existsSync(dir) && !fs.statSync(dir).isDirectory())
    throw new UserError(`${dir} is not a folder: init writes a repository's files into a folder`);
  const files: [string, string][] = [
    [WORKFLOW_PATH, options.sharded === null ? nightlyWorkflow() : shardedWorkflow(options.sharded)],
    ['worker.js', WORKER_ENTRY],
    ['wrangler.toml', wranglerToml(workerName(dir))],
    ['.gitignore', GITIGNORE],
  ];
  const readmePath = path.join(dir, 'README.md');
  const readme = fs.existsSync(readmePath) ? fs.readFileSync(readmePath, 'utf8') : null;
  const section = readmeSection(WORKFLOW_PATH, options.sharded);
  const clashes = files.map(([file]) => file).filter((file) => fs.existsSync(path.join(dir, file)));
  if (readme?.includes(README_BEGIN)) clashes.push('README.md (its "Nightly snapshot" section)');
  if (clashes.length > 0 && !options.force) {
    throw new UserError(
      `init: ${dir} has ${clashes.join(', ')} already; nothing was written (give --force to overwrite ${clashes.length === 1 ? 'it' : 'them'})`,
    );
  }
  for (const [file, text] of files) writeAtomically(path.join(dir, file), text);
  let readmeText: string;
  let how: InitResult['readme'];
  if (readme === null) {
    readmeText = `# ${path.basename(dir)}\n\n${section}`;
    how = 'created';
  } else if (readme.includes(README_BEGIN) && readme.includes(README_END)) {
    const start = readme.indexOf(README_BEGIN);
    const end = readme.indexOf(README_END) + README_END.length;
    readmeText = `${readme.slice(0, start)}${section.trimEnd()}${readme.slice(end)}`;
    how = 'replaced';
  } else {
    readmeText = `${readme.trimEnd()}\n\n${section}`;
    how = 'appended';
  }
  writeAtomically(readmePath, readmeText);
  return {
    dir,
    written: [...files.map(([file]) => file), 'README.md'],
    readme: how,
    missingPackage: !fs.existsSync(path.join(dir, 'package.json')),
  };
}

/** The Worker's name: the package's name, else the folder's, as Cloudflare takes names (a-z, 0-9, -). */
function workerName(dir: string): string {
  let name = path.basename(dir);
  try {
    name = (JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string }).name ?? name;
  } catch {
    // No package.json (or not JSON): the folder's name.
  }
  const cleaned = name
    .toLowerCase()
    .replace(/^@[^/]+\//, '')
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 54);
  return `${cleaned || 'programme'}-snapshot`.replace(/-snapshot-snapshot$/, '-snapshot');
}

/** A file written whole or not at all (a temporary file beside it, renamed over it). */
function writeAtomically(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${crypto.randomBytes(6).toString('hex')}.tmp`;
  fs.writeFileSync(temporary, text);
  fs.renameSync(temporary, file);
}
