/**
 * What the build recorded in the tree (`_snapshot/manifests/K-of-N.{json,sha256}`), read by
 * `publish` before anything is sent: which shard of which build the tree is, and the sha256 of
 * every file it wrote. Publish checks each file's bytes against that record as it packs it: this
 * is what keeps a tree edited after its build (one digit of one balance) from going live.
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { UserError } from '../core/errors.ts';
import { TreeManifestSchema, type TreeManifest } from '../schemas/manifest.ts';
import { MANIFEST_DIR, MANIFEST_NAME, manifestListFile, manifestSummaryFile } from '../tree/manifest-files.ts';
import { parseManifestLine } from '../tree/manifest-line.ts';
import { describeFile, type TreeFile } from './tree-file.ts';

export interface BuildRecords {
  /** The shard the tree holds; 1 of 1 for a whole tree (an unsharded build, or all N shards). */
  shard: { index: number; count: number };
  /** Every shard record in the tree (one, or all N of a union). */
  summaries: TreeManifest[];
  /** tree path -> sha256, for every file the records list. */
  files: Map<string, string>;
}

/**
 * Who takes the tree, for the refusals' words: `publish` (nothing is sent), or `serve`
 * (`serve --runtime workerd` loads a tree by publish's code, and serves only a tree as built).
 */
export type TreeTaker = 'publish' | 'serve';

export async function readBuildRecords(dir: string, shownDir: string, taker: TreeTaker = 'publish'): Promise<BuildRecords> {
  const refuse = (shown: string, why: string) => refusal(shown, why, taker);
  const names = await fs.readdir(path.join(dir, MANIFEST_DIR)).catch(() => [] as string[]);
  const shards = new Map<string, { index: number; count: number }>();
  for (const name of names) {
    const match = MANIFEST_NAME.exec(name);
    if (!match) throw refuse(shownDir, `${MANIFEST_DIR}/${name} is not a record a build writes`);
    shards.set(`${match[1]}-of-${match[2]}`, { index: Number(match[1]), count: Number(match[2]) });
  }
  if (shards.size === 0)
    throw refuse(shownDir, `${MANIFEST_DIR} is missing (the build's record of the files it wrote); build the tree again`);
  const counts = new Set([...shards.values()].map((shard) => shard.count));
  if (counts.size > 1) throw refuse(shownDir, `${MANIFEST_DIR} holds records of different shard counts (${[...counts].join(', ')})`);
  const count = [...counts][0]!;
  if (shards.size > 1 && shards.size < count) {
    const held = [...shards.values()].map((shard) => shard.index).sort((a, b) => a - b);
    throw refuse(
      shownDir,
      `it holds shards ${held.join(', ')} of ${count}: publish each shard's own tree (each is staged), or the union of all ${count}`,
    );
  }
  const summaries: TreeManifest[] = [];
  const files = new Map<string, string>();
  for (const shard of [...shards.values()].sort((a, b) => a.index - b.index)) {
    const summaryFile = manifestSummaryFile(shard);
    const listFile = manifestListFile(shard);
    let summary: TreeManifest;
    try {
      summary = TreeManifestSchema.parse(JSON.parse(await fs.readFile(path.join(dir, ...summaryFile.split('/')), 'utf8')));
    } catch (error) {
      throw refuse(
        shownDir,
        `${summaryFile} cannot be read as the build's record (${(error as Error).message.split('\n')[0]}); build the tree again`,
      );
    }
    const list = await fs.readFile(path.join(dir, ...listFile.split('/'))).catch(() => null);
    if (!list) throw refuse(shownDir, `${listFile} is missing`);
    if (crypto.createHash('sha256').update(list).digest('hex') !== summary.sha256)
      throw refuse(shownDir, `${listFile} was edited (its sha256 is not the one ${summaryFile} records)`);
    for (const line of list.toString('utf8').split('\n')) {
      if (line === '') continue;
      const parsed = parseManifestLine(line);
      if (!parsed) throw refuse(shownDir, `${listFile} holds a malformed line`);
      files.set(parsed.path, parsed.sha256);
    }
    summaries.push(summary);
  }
  const builds = new Set(summaries.map((summary) => `${summary.build.now} ${summary.build.inputs}`));
  if (builds.size > 1)
    throw refuse(shownDir, `its ${summaries.length} shard records come from different builds (another --now or other inputs)`);
  const whole = summaries.length === count;
  return { shard: whole ? { index: 1, count: 1 } : summaries[0]!.shard, summaries, files };
}

/**
 * The tree's files as its build recorded them: every listed file was written by the build and
 * every recorded file is there (the files a static host reads but the store does not,
 * `isPublished`, are listed as present), each with the sha256 its bytes must have when they are
 * packed. The records themselves record no hash of their own: theirs is taken now (they were
 * checked against each other when read).
 */
export function checkAgainstRecords(
  records: BuildRecords,
  tree: { dir: string; paths: readonly string[]; unpublished: readonly string[] },
  shownDir: string,
  taker: TreeTaker = 'publish',
): TreeFile[] {
  const present = new Set(tree.unpublished);
  const problems: string[] = [];
  const files: TreeFile[] = [];
  for (const treePath of tree.paths) {
    present.add(treePath);
    if (treePath.startsWith(`${MANIFEST_DIR}/`)) {
      files.push(describeFile(tree.dir, treePath));
      continue;
    }
    const recorded = records.files.get(treePath);
    if (recorded === undefined) problems.push(`${treePath}: not written by the build`);
    else files.push({ path: treePath, sha256: recorded });
  }
  for (const file of records.files.keys()) if (!present.has(file)) problems.push(`${file}: missing`);
  if (problems.length > 0) throw notAsBuilt(shownDir, problems, taker);
  return files;
}

/**
 * The refusal of a file found, as it was packed, with bytes that are not the ones its build
 * recorded: edited since the build, or replaced by a build while it was being taken. `sentBefore`
 * archives went before it (each only of checked files, into a version that is not staged).
 */
export function editedSinceBuild(shownDir: string, treePath: string, taker: TreeTaker, sentBefore: number): UserError {
  const where =
    sentBefore === 0
      ? undefined
      : `the ${sentBefore} archive${sentBefore === 1 ? '' : 's'} sent before it hold only files checked against the build's record, in a version not staged that a publish of the tree as built resumes from and --keep removes,`;
  return notAsBuilt(shownDir, [`${treePath}: edited since the build (its bytes are not the ones the build wrote)`], taker, where);
}

function notAsBuilt(shownDir: string, problems: string[], taker: TreeTaker, sent = 'nothing was sent'): UserError {
  const shown = problems
    .slice(0, 5)
    .map((problem) => `  - ${problem}`)
    .join('\n');
  return new UserError(
    `--dir ${shownDir} is not the tree its build wrote (${problems.length} problem${problems.length === 1 ? '' : 's'}; ` +
      `${taker === 'publish' ? `${sent} and the live version is untouched` : 'serve --runtime workerd serves a tree only as its build wrote it'}):\n${shown}\n` +
      `run wallet-snapshot verify --dir ${shownDir} for the whole list, and build the tree again`,
  );
}

function refusal(shownDir: string, why: string, taker: TreeTaker): UserError {
  return new UserError(
    taker === 'publish' ? `--dir ${shownDir} cannot be published: ${why}; nothing was sent` : `--dir ${shownDir} cannot be served: ${why}`,
  );
}
