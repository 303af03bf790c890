/**
 * init's block in a file that is the programme's (its README, its .gitignore): between two marker
 * lines, added to the file's end the first time, kept as it is by a second `init`, rewritten in
 * place by `init --force`. Every byte outside the markers stays the programme's.
 */
import { UserError } from '../core/errors.ts';

export type BlockWrite = 'created' | 'appended' | 'kept' | 'replaced';

export interface Markers {
  begin: string;
  end: string;
}

/**
 * The file's new text with `block` (which starts with `markers.begin` and ends with
 * `markers.end` and a newline) merged in; `create` makes a new file's text around it.
 */
export function mergeBlock(
  file: string,
  existing: string | null,
  block: string,
  markers: Markers,
  force: boolean,
  create: (block: string) => string = (text) => text,
): { text: string; how: BlockWrite } {
  if (existing === null) return { text: create(block), how: 'created' };
  const begins = occurrences(existing, markers.begin);
  const ends = occurrences(existing, markers.end);
  if (begins.length === 0 && ends.length === 0) {
    const separator = existing === '' ? '' : existing.endsWith('\n') ? '\n' : '\n\n';
    return { text: `${existing}${separator}${block}`, how: 'appended' };
  }
  if (begins.length !== 1 || ends.length !== 1 || ends[0]! < begins[0]!) {
    throw new UserError(
      `init: ${file} has ${begins.length} line${begins.length === 1 ? '' : 's'} "${markers.begin}" and ${ends.length} "${markers.end}": ` +
        "init's block is one of each, the end after the begin; restore it (or remove both lines and what is between), then run init again. Nothing was written",
    );
  }
  if (!force) return { text: existing, how: 'kept' };
  const after = ends[0]! + markers.end.length;
  // The block's own newline replaces the one after the end marker, if there is one.
  const rest = existing.slice(existing[after] === '\n' ? after + 1 : after);
  return { text: `${existing.slice(0, begins[0])}${block}${rest}`, how: 'replaced' };
}

function occurrences(text: string, marker: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(marker); at !== -1; at = text.indexOf(marker, at + marker.length)) found.push(at);
  return found;
}
