/**
 * The listing of a tree's folders with synchronous reads (no stat: the entries' types come with
 * the folder), on the main thread for the first levels and on the tree-file threads for the rest
 * (read-tree.ts), so that several folders are read from the disk at once.
 */
import fs from 'node:fs';
import { resolveInTree } from './tree-file.ts';

export interface FolderListing {
  /** Tree paths of the files found. */
  files: string[];
  /** Tree paths of the folders found and not listed (all of them listed with `deep`). */
  folders: string[];
  /** The first entry that is neither a file nor a folder (a link, a socket), which a built tree never holds. */
  notRegular: string | null;
}

/** `folders` by tree path ('' is the tree's own folder); with `deep`, every folder below them too. */
export function listFoldersSync(dir: string, folders: readonly string[], deep: boolean): FolderListing {
  const listing: FolderListing = { files: [], folders: [], notRegular: null };
  const queue = [...folders];
  while (queue.length > 0) {
    const folder = queue.pop()!;
    for (const entry of fs.readdirSync(folder === '' ? dir : resolveInTree(dir, folder), { withFileTypes: true })) {
      const treePath = folder === '' ? entry.name : `${folder}/${entry.name}`;
      if (entry.isDirectory()) (deep ? queue : listing.folders).push(treePath);
      else if (entry.isFile()) listing.files.push(treePath);
      else {
        listing.notRegular = treePath;
        return listing;
      }
    }
  }
  return listing;
}
