/**
 * The inputs' fingerprint: the sha256 of the seven files' own sha256, read through the
 * descriptors the build opened (so it is the bytes this build reads, whatever arrives at the same
 * path meanwhile). Recorded in the tree with the build instant, it names one build of one night:
 * the shards of that build share it, and two builds of different exports never do.
 */
import crypto from 'node:crypto';
import type { OpenedInput } from './read.ts';

export async function fingerprintInputs(inputs: OpenedInput[]): Promise<string> {
  const whole = crypto.createHash('sha256');
  for (const input of inputs) {
    const hash = crypto.createHash('sha256');
    // From offset 0 through the descriptor, without moving or closing it (DuckDB reads it too).
    const handle = input.handle;
    if (handle) {
      const buffer = Buffer.allocUnsafe(1 << 20);
      for (let position = 0; ; ) {
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
        if (bytesRead === 0) break;
        hash.update(buffer.subarray(0, bytesRead));
        position += bytesRead;
      }
    } else {
      const { createReadStream } = await import('node:fs');
      for await (const chunk of createReadStream(input.file)) hash.update(chunk as Buffer);
    }
    whole.update(`${hash.digest('hex')}  ${input.contract.file}\n`);
  }
  return whole.digest('hex');
}
