import { z } from 'zod';

/**
 * `_snapshot/manifests/<K>-of-<N>.json`: what one build (shard K of N; an unsharded build is 1 of
 * 1) wrote. Its list of files is the `.sha256` file beside it (`<sha256>  <path>` per line, the
 * `sha256sum` format), whose own sha256 is recorded here, so that an edited list is caught too.
 */
export const TreeManifestSchema = z
  .object({
    format: z.literal(1),
    shard: z.object({ index: z.number().int().min(1), count: z.number().int().min(1) }).strict(),
    wallets: z.number().int().min(0).meta({ description: 'wallet folders (v1/address/{address}/) in the list' }),
    files: z.number().int().min(0).meta({ description: 'lines of the list: every file this build wrote but the two manifest files' }),
    sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .meta({ description: 'sha256 of the bytes of the .sha256 list beside this file' }),
    build: z
      .object({
        now: z.iso.datetime().meta({ description: 'the build instant (--now)' }),
        inputs: z
          .string()
          .regex(/^[0-9a-f]{64}$/)
          .meta({ description: "sha256 of the seven input files (each file's sha256 and name)" }),
      })
      .strict()
      .meta({ description: 'what names one build: the shards of a build share it, so publish derives their common version from it' }),
  })
  .strict()
  .refine((manifest) => manifest.shard.index <= manifest.shard.count, 'shard index above the shard count');

export type TreeManifest = z.infer<typeof TreeManifestSchema>;
