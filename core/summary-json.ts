/**
 * `--summary-json FILE`, shared by build, prepare, verify and publish: the path is checked before
 * the work, so that one that cannot be written fails at once (exit 1) and not after the tree is
 * written or published; the document is written to a temporary file beside it and renamed over
 * it, so that a reader (a workflow's `jq`) never sees half a document, or the last night's.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { EXIT_CANNOT_WRITE, UserError, isWriteRefused, messageOf } from './errors.ts';

/**
 * Checks `file` can be written and returns the function that writes a summary into it; `done`
 * says, in the message of a late failure, what was done all the same ("the tree was published").
 */
export function summaryJsonWriter<T>(file: string, done: string): (summary: T) => void {
  try {
    if (fs.existsSync(file)) {
      if (fs.statSync(file).isDirectory()) throw new Error('it is a directory');
      fs.accessSync(file, fs.constants.W_OK);
    } else {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.accessSync(path.dirname(file), fs.constants.W_OK);
    }
  } catch (error) {
    throw new UserError(`--summary-json ${file} cannot be written (${messageOf(error)})`);
  }
  return (summary) => {
    const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${crypto.randomBytes(6).toString('hex')}.tmp`);
    try {
      fs.writeFileSync(temporary, `${JSON.stringify(summary, null, 2)}\n`);
      fs.renameSync(temporary, file);
    } catch (error) {
      fs.rmSync(temporary, { force: true });
      const message = `--summary-json ${file} cannot be written (${messageOf(error)}); ${done}`;
      throw new UserError(message, isWriteRefused(messageOf(error)) ? EXIT_CANNOT_WRITE : 1);
    }
  };
}
