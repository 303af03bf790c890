import { z } from 'zod';
import { PackedShardSchema } from '../tree/live-pointer.ts';

const Sha256Schema = z.string().regex(/^[0-9a-f]{64}$/);

/** The bytes and sha256 of one file of a packed folder, as `build --packed` wrote it. */
const SealedFileSchema = z.object({ bytes: z.number().int().min(0), sha256: Sha256Schema }).strict();

/**
 * `packed.json`, the descriptor of a folder `build --packed` wrote (tree/packed-folder.ts): which
 * shard of which build it holds, and each of its files (archives, index, manifest) with its size
 * and sha256, so that `verify`, `publish` and `serve` find any of them replaced, cut short or
 * missing before they read a member.
 */
export const PackedFolderSchema = z
  .object({
    format: z.literal(1),
    storage: z.string().meta({ description: 'how the members are stored (tree/bucket.ts STORAGE_FORMAT): publish sends only its own' }),
    shard: z.object({ index: z.number().int().min(1), count: z.number().int().min(1) }).strict(),
    lastClosedDay: z.iso.date(),
    build: z
      .object({ now: z.iso.datetime(), inputs: Sha256Schema })
      .strict()
      .meta({ description: "the build's instant and inputs, as its record (_snapshot/manifests/K-of-N.json) names them" }),
    files: z.number().int().min(1).meta({ description: 'members of the archives: every file of the tree that the store holds' }),
    rawBytes: z.number().int().min(0).meta({ description: 'the members uncompressed' }),
    pack: PackedShardSchema.meta({ description: 'the archives and the shape of the index, as the live pointer carries them' }),
    archives: z.array(SealedFileSchema).min(1),
    index: SealedFileSchema,
    manifest: SealedFileSchema.extend({ textSha256: Sha256Schema }).strict().meta({
      description: 'manifest.sha256.gz: the members\' "<sha256>  <path>" lines in path order, as publish stores a shard\'s record',
    }),
  })
  .strict()
  .refine((folder) => folder.shard.index <= folder.shard.count, 'shard index above the shard count')
  .refine((folder) => folder.archives.length === folder.pack.archives, 'one entry per archive');

export type PackedFolder = z.infer<typeof PackedFolderSchema>;
