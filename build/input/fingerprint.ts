/**
 * The inputs' fingerprint: the sha256 of the seven files' own sha256, read through the
 * descriptors the build opened (so it is the bytes this build reads, whatever arrives at the same
 * path meanwhile). Recorded in the tree with the build instant, it names one build of one night:
 * the shards of that build share it, and two builds of different exports never do.
 */
import crypto, { type Hash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import type { OpenedInput } from './read.ts';

/**
 * The fingerprint, hashed while the run's DuckDB works (its main thread mostly waits on it); a
 * failure is the caller's when it awaits the promise, never an unhandled rejection before.
 */
export function fingerprintWhileWorking(inputs: OpenedInput[]): Promise<string> {
  const digest = fingerprintInputs(inputs);
  digest.catch(() => {});
  return digest;
}

async function fingerprintInputs(inputs: OpenedInput[]): Promise<string> {
  const whole = crypto.createHash('sha256');
  for (const input of inputs) {
    const hash = crypto.createHash('sha256');
    // From offset 0 through the descriptor, without moving or closing it (DuckDB reads it too).
    const handle = input.handle;
    if (handle) {
      await hashThroughHandle(handle, hash);
    } else {
      const { createReadStream } = await import('node:fs');
      for await (const chunk of createReadStream(input.file)) hash.update(chunk as Buffer);
    }
    whole.update(`${hash.digest('hex')}  ${input.contract.file}\n`);
  }
  return whole.digest('hex');
}

/** Feeds `hash` with a file's bytes read through `handle` from offset 0, without moving or closing it. */
export async function hashThroughHandle(handle: FileHandle, hash: Hash): Promise<void> {
  const buffer = Buffer.allocUnsafe(1 << 20);
  for (let position = 0; ; ) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) break;
    hash.update(buffer.subarray(0, bytesRead));
    position += bytesRead;
  }
}
