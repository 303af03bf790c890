/**
 * The archives of a packed version (tree/bucket.ts): plain POSIX tar files (ustar headers), so
 * that `tar -tf` lists one and `tar -xf` unpacks it. Each member is one file of the tree, stored
 * as the Worker serves it: gzip-compressed on its own (named `<tree path>.gz`) for text, as it is
 * otherwise. The index (pack-index.ts) points at each member's data, past its header, so that a
 * reader takes a document with one range read and never parses tar.
 *
 * Written by `build --packed` and by publish; no node: modules, like the rest of tree/ that the
 * Worker bundles.
 */
import { ARCHIVE_MAX_BYTES } from './bucket.ts';

const BLOCK = 512;
const NAME_BYTES = 100;
const PREFIX_BYTES = 155;

/** The end of a tar archive: two zero blocks. */
export const ARCHIVE_END = new Uint8Array(2 * BLOCK);

/**
 * Whether a member of `memberBytes` (header, data and padding) goes into a new archive when the
 * current one holds `filled` bytes: an archive ends within ARCHIVE_MAX_BYTES, its end blocks
 * included, and a member larger than that goes alone into one of its own size.
 */
export function startsNewArchive(filled: number, memberBytes: number): boolean {
  return filled > 0 && filled + memberBytes + ARCHIVE_END.length > ARCHIVE_MAX_BYTES;
}

/** The name of a member in the archive: its tree path, with `.gz` when its bytes are gzip. */
export function memberName(treePath: string, gzip: boolean): string {
  return gzip ? `${treePath}.gz` : treePath;
}

/** A member's header, and the zero bytes that pad its data to whole blocks. */
export function memberHeader(name: string, size: number, mtimeMs: number): Uint8Array {
  const header = new Uint8Array(BLOCK);
  const [prefix, base] = splitName(name);
  write(header, 0, base, NAME_BYTES);
  write(header, 100, '0000644\0', 8);
  write(header, 108, '0000000\0', 8);
  write(header, 116, '0000000\0', 8);
  write(header, 124, `${octal(size, 11)}\0`, 12);
  write(header, 136, `${octal(Math.floor(mtimeMs / 1000), 11)}\0`, 12);
  header.fill(0x20, 148, 156);
  header[156] = 0x30; // '0': a regular file
  write(header, 257, 'ustar\0', 6);
  write(header, 263, '00', 2);
  write(header, 345, prefix, PREFIX_BYTES);
  let sum = 0;
  for (const byte of header) sum += byte;
  write(header, 148, `${octal(sum, 6)}\0 `, 8);
  return header;
}

/** Zero bytes after a member's data of `size` bytes, up to the next block. */
export function memberPadding(size: number): number {
  return (BLOCK - (size % BLOCK)) % BLOCK;
}

/** ustar keeps a long name as a prefix (up to 155 bytes) and a name (up to 100), split at a `/`. */
function splitName(name: string): [string, string] {
  if (byteLength(name) <= NAME_BYTES) return ['', name];
  for (let at = name.indexOf('/'); at !== -1; at = name.indexOf('/', at + 1)) {
    const prefix = name.slice(0, at);
    const base = name.slice(at + 1);
    if (byteLength(prefix) <= PREFIX_BYTES && byteLength(base) <= NAME_BYTES) return [prefix, base];
  }
  throw new Error(`${name} is too long for a tar member name (at most 155 bytes of folders and 100 of file name)`);
}

const encoder = new TextEncoder();

function byteLength(text: string): number {
  return encoder.encode(text).length;
}

function write(header: Uint8Array, at: number, text: string, width: number): void {
  const bytes = encoder.encode(text);
  if (bytes.length > width) throw new Error(`tar header field of ${width} bytes cannot hold ${text}`);
  header.set(bytes, at);
}

function octal(value: number, digits: number): string {
  const text = value.toString(8);
  if (text.length > digits) throw new Error(`${value} does not fit a tar header field of ${digits} octal digits`);
  return text.padStart(digits, '0');
}

const decoder = new TextDecoder();

/**
 * A member's header as `memberHeader` writes it: its name and data size, or null when the block
 * is not one (its checksum does not add up, or it is not a ustar regular file). Read by the scrub
 * of a stored version (publish/scrub.ts).
 */
export function readMemberHeader(block: Uint8Array): { name: string; size: number } | null {
  if (block.length < BLOCK || decoder.decode(block.subarray(257, 262)) !== 'ustar' || block[156] !== 0x30) return null;
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : block[i]!;
  if (sum !== parseInt(field(block, 148, 8), 8)) return null;
  const prefix = field(block, 345, PREFIX_BYTES);
  const base = field(block, 0, NAME_BYTES);
  return { name: prefix ? `${prefix}/${base}` : base, size: parseInt(field(block, 124, 12), 8) };
}

/** The length of an archive whose last member's data ends at `dataEnd`: its padding, then the end blocks. */
export function archiveLength(dataEnd: number): number {
  return dataEnd + memberPadding(dataEnd) + ARCHIVE_END.length;
}

/** A header field's text, up to its first NUL (or space, for the numbers). */
function field(block: Uint8Array, at: number, width: number): string {
  const bytes = block.subarray(at, at + width);
  const end = bytes.indexOf(0);
  return decoder.decode(end === -1 ? bytes : bytes.subarray(0, end)).trim();
}
