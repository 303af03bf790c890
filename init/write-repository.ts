/**
 * `init`: writes what a programme's own data repository needs (the nightly workflow, the Worker
 * and its wrangler.toml, init's block of the .gitignore, a README section). The files wholly
 * init's are refused, all of them, when one is there already, unless told to overwrite; the
 * .gitignore and the README are the programme's, and only get init's block merged in
 * (init/marked-block.ts). Nothing is written until every check has passed (docs/cli.md, "init").
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../core/errors.ts';
import {
  GITIGNORE_BEGIN,
  GITIGNORE_BLOCK,
  GITIGNORE_END,
  README_BEGIN,
  README_END,
  WORKER_ENTRY,
  readmeSection,
  wranglerToml,
} from './files.ts';
import { type BlockWrite, mergeBlock } from './marked-block.ts';
import { nightlyWorkflow, PLACEHOLDERS, shardedWorkflow, type StoreNames, WORKFLOW_PATH } from './workflows.ts';

export { WORKFLOW_PATH } from './workflows.ts';

/** A matrix runs at most 256 jobs in one workflow run (GitHub Actions' limit): one per shard. */
export const MAX_INIT_SHARDS = 256;

export interface InitOptions {
  dir: string;
  /** The shard count of a sharded night, or null for one runner. */
  sharded: number | null;
  force: boolean;
  /** The bucket (`--bucket`) and the prefix (`--prefix`) to write, given together; absent: the placeholders. */
  bucket?: string;
  prefix?: string;
}

export interface InitResult {
  dir: string;
  /** Paths relative to `dir`, in the order written (the .gitignore and the README last, written or kept). */
  written: string[];
  gitignore: BlockWrite;
  readme: BlockWrite;
  /** The store's names written, or null: the placeholders. */
  names: StoreNames | null;
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
  const names = storeNames(options.bucket, options.prefix);
  if (fs.existsSync(dir) && !fs.statSync(dir).isDirectory())
    throw new UserError(`${dir} is not a folder: init writes a repository's files into a folder`);
  const workflow = { schedule: true, names: names ?? undefined };
  const wholly: [string, string][] = [
    [WORKFLOW_PATH, options.sharded === null ? nightlyWorkflow(workflow) : shardedWorkflow(options.sharded, workflow)],
    ['worker.js', WORKER_ENTRY],
    ['wrangler.toml', wranglerToml(workerName(dir), names)],
  ];
  const clashes = wholly.map(([file]) => file).filter((file) => fs.existsSync(path.join(dir, file)));
  if (clashes.length > 0 && !options.force) {
    throw new UserError(
      `init: ${dir} has ${clashes.join(', ')} already; nothing was written (give --force to overwrite ${clashes.length === 1 ? 'it' : 'them'})`,
    );
  }
  const read = (file: string) => (fs.existsSync(path.join(dir, file)) ? fs.readFileSync(path.join(dir, file), 'utf8') : null);
  const gitignore = mergeBlock(
    '.gitignore',
    read('.gitignore'),
    GITIGNORE_BLOCK,
    { begin: GITIGNORE_BEGIN, end: GITIGNORE_END },
    options.force,
  );
  const readme = mergeBlock(
    'README.md',
    read('README.md'),
    readmeSection(WORKFLOW_PATH, options.sharded, names),
    { begin: README_BEGIN, end: README_END },
    options.force,
    (section) => `# ${path.basename(dir)}\n\n${section}`,
  );
  for (const [file, text] of wholly) writeAtomically(path.join(dir, file), text);
  for (const [file, merged] of [
    ['.gitignore', gitignore],
    ['README.md', readme],
  ] as const) {
    if (merged.how !== 'kept') writeAtomically(path.join(dir, file), merged.text);
  }
  return {
    dir,
    written: [...wholly.map(([file]) => file), '.gitignore', 'README.md'],
    gitignore: gitignore.how,
    readme: readme.how,
    names,
    missingPackage: !fs.existsSync(path.join(dir, 'package.json')),
  };
}

/** A bucket name as S3 and R2 take it: 3 to 63 lower-case letters, digits, dots and hyphens. */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
/** A prefix of path segments a workflow, a TOML string and a shell word carry as they are. */
const PREFIX = /^[A-Za-z0-9_-][A-Za-z0-9._-]*(?:\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;

/** `--bucket` and `--prefix`, checked; both absent: null (the placeholders). */
function storeNames(bucket: string | undefined, prefix: string | undefined): StoreNames | null {
  if (bucket === undefined && prefix === undefined) return null;
  if (bucket === undefined || prefix === undefined) {
    throw new UserError(
      `init: ${bucket === undefined ? '--prefix' : '--bucket'} was given without ${bucket === undefined ? '--bucket' : '--prefix'}: give both (the nights go to s3://BUCKET/PREFIX), or neither for placeholders`,
    );
  }
  if (!BUCKET.test(bucket) || bucket.includes('..') || bucket === PLACEHOLDERS.bucket) {
    throw new UserError(
      `init: --bucket "${bucket}" is not a bucket's name: expected 3 to 63 lower-case letters, digits, dots and hyphens, beginning and ending with a letter or digit (R2 takes no dots), e.g. points-snapshots`,
    );
  }
  const trimmed = prefix.replace(/^\/+|\/+$/g, '');
  if (!PREFIX.test(trimmed) || trimmed.length > 200 || trimmed === PLACEHOLDERS.prefix) {
    throw new UserError(
      `init: --prefix "${prefix}" is not a prefix init writes: expected one or more folder names of letters, digits, dots, hyphens and underscores, joined by /, not empty and none . or .. (e.g. prod, or snapshots/prod)`,
    );
  }
  return { bucket, prefix: trimmed };
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
