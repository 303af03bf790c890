/**
 * What `verify` reads a tree through: a folder of files, or a packed folder's members
 * (tree/packed-files.ts), so that one set of checks proves both forms. Node only.
 */
import fs from 'node:fs';
import path from 'node:path';

/** An entry of a folder listing (the members of `fs.Dirent` verify uses). */
export interface TreeEntry {
  name: string;
  isFile(): boolean;
  isDirectory(): boolean;
}

export interface TreeFiles {
  /** The tree as the user named it, for messages. */
  readonly where: string;
  /** A folder's entries in name order; throws as `read` does when it cannot be listed. */
  entries(folder: string): TreeEntry[];
  /** A folder's entries in name order; null when it cannot be listed (or does not exist). */
  list(folder: string): TreeEntry[] | null;
  /** A file's bytes; throws an error with `code` ENOENT when there is no such file, another error when it cannot be read. */
  read(file: string): Buffer;
}

/** A tree of files in the folder `root`. */
export function folderFiles(root: string): TreeFiles {
  const entries = (folder: string) =>
    fs.readdirSync(path.join(root, folder), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
  return {
    where: root,
    entries,
    list: (folder) => listed(() => entries(folder)),
    read: (file) => fs.readFileSync(path.join(root, file)),
  };
}

/** The entries, or null when they cannot be listed. */
export function listed(entries: () => TreeEntry[]): TreeEntry[] | null {
  try {
    return entries();
  } catch {
    return null;
  }
}

/** The listing of folders that `paths` (files, `a/b/c.json`) make, as a file system would list them. */
export class PathListing {
  private readonly folders = new Map<string, Map<string, 'file' | 'folder'>>();

  constructor(paths: Iterable<string>) {
    this.folders.set('', new Map());
    for (const file of paths) this.add(file);
  }

  add(file: string): void {
    const parts = file.split('/');
    let folder = '';
    for (let i = 0; i < parts.length; i++) {
      const kind = i === parts.length - 1 ? 'file' : 'folder';
      let entries = this.folders.get(folder);
      if (!entries) {
        entries = new Map();
        this.folders.set(folder, entries);
      }
      // A name that is a file and a folder at once (only a tampered tree): the folder shows.
      if (entries.get(parts[i]!) !== 'folder') entries.set(parts[i]!, kind);
      folder = folder === '' ? parts[i]! : `${folder}/${parts[i]}`;
    }
  }

  entries(folder: string): TreeEntry[] {
    const entries = this.folders.get(folder);
    if (!entries) throw missingFile(folder);
    return [...entries]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([name, kind]) => ({ name, isFile: () => kind === 'file', isDirectory: () => kind === 'folder' }));
  }
}

/** The error a missing file of a tree raises, as the file system's. */
export function missingFile(file: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`no such file: ${file}`);
  error.code = 'ENOENT';
  return error;
}
