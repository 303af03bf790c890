/**
 * `verify` reads one document: its bytes (handed to the manifest check, so that no file is read
 * twice), JSON, its schema (the fast acceptance test compiled from the zod schema, zod itself for
 * anything it does not accept, verify-schema.ts), and every number's text (verify-exact.ts).
 */
import { isAscii } from 'node:buffer';
import type { z } from 'zod';
import type { TreeFiles } from './tree-files.ts';
import { fastAcceptor } from './verify-schema.ts';
import { readNumberTexts } from './verify-exact.ts';

export type Fail = (message: string) => void;

export interface ReadDocument<T> {
  value: T;
  /** The texts of its balances in document order (verify-exact.ts); null when they could not be read. */
  balances: string[] | null;
}

/**
 * Reads `file` of the tree: null (and a failure) when it is missing, unreadable, not JSON or not of
 * its schema. A document whose numbers are not the texts the build writes is reported and still
 * returned, for the rules across files.
 */
export function readDocument<T>(
  files: TreeFiles,
  file: string,
  schema: z.ZodType<T>,
  fail: Fail,
  sawBytes: (file: string, bytes: Buffer) => void,
): ReadDocument<T> | null {
  let bytes: Buffer;
  try {
    bytes = files.read(file);
  } catch (error) {
    fail(unreadable(file, error));
    return null;
  }
  sawBytes(file, bytes);
  // The build writes ASCII: such bytes are the string's own (no UTF-8 decoding).
  const text = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    fail(`${file}: not JSON (${(error as Error).message})`);
    return null;
  }
  const accept = fastAcceptor(schema);
  if (accept === null || !accept(parsed)) {
    const result = schema.safeParse(parsed);
    if (!result.success) {
      const issue = result.error.issues[0]!;
      fail(`${file}: does not match its schema at ${issue.path.join('.') || '(root)'}: ${issue.message}`);
      return null;
    }
  }
  // The parsed value is kept, as that is what the texts pair with (the schemas transform nothing).
  const texts = readNumberTexts(file, bytes, text, parsed);
  if (texts.problem !== null) fail(texts.problem);
  return { value: parsed as T, balances: texts.balances };
}

/**
 * Why a file of the tree could not be read: `missing` only when it is not there; anything else
 * (a folder where the file should be, no permission, an I/O error) is `unreadable`, with the
 * system's words, so that a failing disk is not taken for an incomplete tree.
 */
export function unreadable(file: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return `${file}: missing`;
  return `${file}: unreadable (${error instanceof Error ? error.message : String(error)})`;
}
