/** Paths compared as the file system resolves them, not as strings. */
import fs from 'node:fs';
import path from 'node:path';

/** Whether `inner` is `outer` or inside it, symbolic links followed where the paths exist. */
export function isWithin(inner: string, outer: string): boolean {
  const relative = path.relative(realPath(outer), realPath(inner));
  return relative === '' || (!relative.startsWith(`..${path.sep}`) && relative !== '..' && !path.isAbsolute(relative));
}

/** The real path of the longest existing part of `file`, with the rest appended. */
function realPath(file: string): string {
  const missing: string[] = [];
  let existing = file;
  while (!fs.existsSync(existing) && path.dirname(existing) !== existing) {
    missing.unshift(path.basename(existing));
    existing = path.dirname(existing);
  }
  return path.join(fs.realpathSync.native(existing), ...missing);
}
