/**
 * Errors keep what they were made from: a refusal keeps its cause (`Error.cause`), and an error
 * made in a thread reaches the main thread with its class, exit code, system code, stack and
 * causes (core/errors.ts, `toCrossing` / `fromCrossing`), across a real worker thread.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Worker } from 'node:worker_threads';
import { EXIT_CANNOT_WRITE, UserError, fromCrossing, type CrossingError } from '../core/errors.ts';
import { cannotWrite, outOfMemory } from '../build/errors.ts';

/** Runs `body` (JavaScript with `UserError`, `toCrossing` and the exit codes in scope) in a worker thread; returns what it posted. */
function fromThread(body: string): Promise<CrossingError> {
  const errors = new URL('../core/errors.ts', import.meta.url).href;
  // Like the build's thread entries: tsx registered in the thread, then the TypeScript module.
  const worker = new Worker(
    `const { parentPort } = require('node:worker_threads');
     import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))})
       .then(({ register }) => { register(); return import(${JSON.stringify(errors)}); })
       .then(({ UserError, toCrossing, EXIT_CANNOT_WRITE }) => { ${body} });`,
    { eval: true },
  );
  return new Promise((resolve, reject) => {
    worker.once('message', (message: CrossingError) => {
      resolve(message);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

test('a UserError made in a thread keeps its exit code, message, stack and cause on the main thread', async () => {
  const sent = await fromThread(`
    const cause = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    function writeInThread() { return new UserError('could not write the new tree', EXIT_CANNOT_WRITE, { cause }); }
    parentPort.postMessage(toCrossing(writeInThread()));`);
  const error = fromCrossing(sent, 'document or file thread');
  assert.instance(error, UserError);
  assert.is((error as UserError).exitCode, EXIT_CANNOT_WRITE);
  // A user's message is shown as it was, without where it happened.
  assert.is(error.message, 'could not write the new tree');
  assert.match(error.stack!, 'writeInThread');
  const cause = error.cause as NodeJS.ErrnoException;
  assert.instance(cause, Error);
  assert.is(cause.message, 'ENOSPC: no space left on device, write');
  assert.is(cause.code, 'ENOSPC');
});

test("any other error made in a thread says where, keeps its system code (so the disk's refusal is still exit 4) and its stack", async () => {
  const sent = await fromThread(`
    function writeFileInThread() { return Object.assign(new Error('EFBIG: file too large, write'), { code: 'EFBIG' }); }
    parentPort.postMessage(toCrossing(writeFileInThread()));`);
  const error = fromCrossing(sent, 'document or file thread');
  assert.not.instance(error, UserError);
  assert.is(error.message, 'document or file thread: EFBIG: file too large, write');
  assert.is((error as NodeJS.ErrnoException).code, 'EFBIG');
  assert.match(error.stack!, 'writeFileInThread');
  const refusal = cannotWrite(error, '/srv/public')!;
  assert.is(refusal.exitCode, EXIT_CANNOT_WRITE);
  assert.is(refusal.cause, error);
});

test("the build's translations keep the error they were made from", () => {
  const full = new Error('IO Error: Could not write file "x": No space left on device');
  assert.is(cannotWrite(full, '/o')!.cause, full);
  const memory = new Error('Out of Memory Error: failed to allocate data of size 16.0 MiB (8.0 MiB/8.0 MiB used)');
  assert.is(outOfMemory(memory, { memoryLimit: '8MB', threads: 2 })!.cause, memory);
});

test.run();
