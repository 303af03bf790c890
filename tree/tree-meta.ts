/**
 * A built tree's `_snapshot/meta.json`, whichever form the build wrote: a file of a tree, or a
 * member of a packed folder (tree/packed-folder.ts). Node only (`serve` prints examples from it).
 */
import fs from 'node:fs';
import path from 'node:path';
import { SnapshotMetaSchema, type SnapshotMeta } from '../schemas/meta.ts';
import { META_FILE } from './layout.ts';
import { isPackedFolder, OpenedPackedFolder } from './packed-folder.ts';

/** The meta of the tree at `dir`, or null when `dir` holds no tree (nor a packed folder). */
export function readTreeMeta(dir: string): SnapshotMeta | null {
  let bytes: Buffer | null;
  if (isPackedFolder(dir)) {
    const folder = OpenedPackedFolder.open(dir, dir);
    try {
      bytes = folder.readFile(META_FILE);
    } finally {
      folder.close();
    }
  } else {
    const file = path.join(dir, ...META_FILE.split('/'));
    bytes = fs.existsSync(file) ? fs.readFileSync(file) : null;
  }
  return bytes === null ? null : SnapshotMetaSchema.parse(JSON.parse(bytes.toString('utf8')));
}
