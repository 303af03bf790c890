/**
 * A line of every manifest the project writes: `<sha256>  <tree path>\n`, the format of
 * `sha256sum`, so that `sha256sum -c` checks a tree against it. The build's records of the files
 * it wrote (tree/manifest-files.ts), verify, and publish's records of a version all write and read
 * it through this module.
 */

/** The line of one file: its sha256 (64 lower-case hex digits) and its tree path. */
export function manifestLine(sha256: string, treePath: string): string {
  return `${sha256}  ${treePath}\n`;
}

const LINE = /^([0-9a-f]{64}) {2}(.+)$/;

/** A line without its newline, or null when it is not one `manifestLine` writes. */
export function parseManifestLine(line: string): { sha256: string; path: string } | null {
  const match = LINE.exec(line);
  return match ? { sha256: match[1]!, path: match[2]! } : null;
}

/** Where the tree path starts in a line: after the 64 hex digits and the two spaces. */
export const MANIFEST_LINE_PATH_AT = 66;
