/**
 * The last file of a packed build (tree/packed-folder.ts): `packed.json`, the pack's own facts
 * (written by the file thread, pack-file-writer.ts) with what names the shard and its build.
 * Written once the archives, the index and the manifest are whole, so a folder with a descriptor
 * holds all three.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { STORAGE_FORMAT } from '../../tree/bucket.ts';
import { PACKED_DESCRIPTOR, packedDescriptorText } from '../../tree/packed-folder.ts';
import type { PackFacts } from './pack-file-writer.ts';

export async function writePackedDescriptor(
  root: string,
  facts: PackFacts,
  named: { shard: { index: number; count: number }; lastClosedDay: string; build: { now: string; inputs: string } },
): Promise<void> {
  const text = packedDescriptorText({ format: 1, storage: STORAGE_FORMAT, ...named, ...facts });
  await fs.writeFile(path.join(root, PACKED_DESCRIPTOR), text);
}
