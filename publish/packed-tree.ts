/**
 * A packed folder (`build --packed`, tree/packed-folder.ts) as publish takes it: its members are
 * the files, named by its manifest, and its archives are sent as they are, each checked against
 * the sha256 its descriptor records before it goes (no document is read, compressed or hashed
 * again). What the members hold was proven by `verify`; what publish proves is that the archives
 * are the ones the build wrote, and that its record agrees with the descriptor.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { UserError, messageOf } from '../core/errors.ts';
import type { Progress } from '../core/progress.ts';
import { TreeManifestSchema } from '../schemas/manifest.ts';
import { archiveName, INDEX_NAME } from '../tree/bucket.ts';
import { manifestSummaryFile } from '../tree/manifest-files.ts';
import { OpenedPackedFolder, PACKED_DESCRIPTOR, packedArchivePath } from '../tree/packed-folder.ts';
import { ArchiveSender, type PackTarget } from './archive-sender.ts';
import type { BuildRecords, TreeTaker } from './build-records.ts';
import type { PackSummary } from './pack-shard.ts';
import type { TreeFile } from './tree-file.ts';

export interface PackedTree {
  lastClosedDay: string;
  records: BuildRecords;
  files: TreeFile[];
  folder: OpenedPackedFolder;
}

/** The packed folder at `dir` (a real path), refused in `taker`'s words when it is not as its build wrote it. */
export function readPackedTree(dir: string, shownDir: string, taker: TreeTaker): PackedTree {
  const refuse = (why: string) =>
    new UserError(
      taker === 'publish'
        ? `--dir ${shownDir} cannot be published: ${why}; nothing was sent`
        : `--dir ${shownDir} cannot be served: ${why}`,
    );
  let folder: OpenedPackedFolder;
  let files: TreeFile[];
  try {
    folder = OpenedPackedFolder.open(dir, shownDir);
    files = folder.members();
  } catch (error) {
    if (error instanceof UserError) throw refuse(error.message);
    throw error;
  }
  const { descriptor } = folder;
  // The build's own record, a member: what names the build (and so a sharded version) must be the descriptor's.
  const summaryFile = manifestSummaryFile(descriptor.shard);
  let summary;
  try {
    const bytes = folder.readFile(summaryFile);
    if (!bytes) throw new Error('it is not a member');
    summary = TreeManifestSchema.parse(JSON.parse(bytes.toString('utf8')));
  } catch (error) {
    throw refuse(`${summaryFile} cannot be read as the build's record (${messageOf(error).split('\n')[0]}); build it again`);
  }
  if (summary.build.now !== descriptor.build.now || summary.build.inputs !== descriptor.build.inputs)
    throw refuse(`${PACKED_DESCRIPTOR} names another build than its record ${summaryFile}; build it again`);
  const records: BuildRecords = {
    shard: descriptor.shard,
    summaries: [summary],
    files: new Map(files.map((file) => [file.path, file.sha256])),
  };
  return { lastClosedDay: descriptor.lastClosedDay, records, files, folder };
}

/** Each archive's bytes, checked against the sha256 the descriptor records; the error names the first that is not. */
function readArchive(folder: OpenedPackedFolder, archive: number, edited: (file: string) => Error): Buffer {
  const file = packedArchivePath(folder.descriptor.shard, archive);
  const bytes = fs.readFileSync(path.join(folder.dir, file));
  if (crypto.createHash('sha256').update(bytes).digest('hex') !== folder.descriptor.archives[archive - 1]!.sha256) throw edited(file);
  return bytes;
}

/** Every archive checked against the descriptor, nothing sent (a version stored already must still be the folder's). */
export function checkPackedArchives(folder: OpenedPackedFolder, edited: (file: string) => Error): void {
  for (let archive = 1; archive <= folder.descriptor.pack.archives; archive++) readArchive(folder, archive, edited);
}

/**
 * The folder's archives and index sent as they are (skipped when stored whole already), one
 * archive read at a time. `edited(file, sentBefore)`: the refusal of an archive that is not the
 * one the build wrote.
 */
export async function sendPackedArchives(
  folder: OpenedPackedFolder,
  target: PackTarget,
  options: { progress: Progress; checkInterrupted(): void; edited(file: string, sentBefore: number): Error },
): Promise<PackSummary> {
  const { descriptor } = folder;
  const sender = new ArchiveSender(target);
  try {
    for (let archive = 1; archive <= descriptor.pack.archives; archive++) {
      options.checkInterrupted();
      const bytes = readArchive(folder, archive, (file) => options.edited(file, sender.figures.sent.objects));
      await sender.send(archiveName(archive), bytes);
      options.progress.tick(archive, descriptor.pack.archives, 'archives');
    }
    await sender.send(INDEX_NAME, folder.index);
    await sender.finish();
  } finally {
    await sender.settle();
  }
  return { ...sender.figures, shape: descriptor.pack, files: descriptor.files, rawBytes: descriptor.rawBytes };
}
