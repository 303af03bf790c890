/**
 * The pointer (`live.json`, tree/bucket.ts), the one object that says which version readers
 * serve; publish writes it last. It also carries what a reader needs to find a file of that
 * version: each shard's index shape (tree/pack-index.ts), so that a document costs an index read
 * and an archive read, and nothing else. Written and parsed here, by publish, by the Worker's
 * store and by `serve --runtime workerd`.
 */
import { z } from 'zod';
import { VERSION_ID_PATTERN } from './bucket.ts';

const VersionIdSchema = z.string().regex(VERSION_ID_PATTERN);

/** One shard of a packed version: its archives (numbered from 1) and its index's shape. */
export const PackedShardSchema = z
  .object({
    archives: z.number().int().min(1),
    slots: z.number().int().min(1),
    length: z.number().int().min(1),
    window: z.number().int().min(1),
  })
  .strict();
export type PackedShard = z.infer<typeof PackedShardSchema>;

const LivePointerSchema = z
  .object({
    version: VersionIdSchema,
    /** Older versions, newest first: where `--rollback` goes. */
    previous: z.array(VersionIdSchema),
    publishedAt: z.iso.datetime(),
    /** Shard K of N is `shards[K - 1]`; a whole tree is one shard. */
    shards: z.array(PackedShardSchema).min(1),
  })
  .strict();

export type LivePointer = z.infer<typeof LivePointerSchema>;

export function pointerText(pointer: LivePointer): string {
  return `${JSON.stringify(LivePointerSchema.parse(pointer))}\n`;
}

/** The pointer, or null when the text is not one this release writes. */
export function parsePointer(text: string): LivePointer | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  const result = LivePointerSchema.safeParse(parsed);
  return result.success ? result.data : null;
}
