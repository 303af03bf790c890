import { z } from 'zod';

/**
 * `verify --summary-json FILE`: written whether the tree passes or not (docs/cli.md), before the
 * command exits (0 when `ok`, 1 when not).
 */
export const VerifySummaryJsonSchema = z
  .object({
    command: z.literal('verify'),
    ok: z.boolean(),
    /** What was checked: the `--dir` folder, or the `--from` location. */
    target: z.string(),
    /** `--shard K/N`, or null for a whole tree. */
    shard: z
      .object({ index: z.number().int().min(1), count: z.number().int().min(1) })
      .strict()
      .nullable(),
    /** What the build's records prove, in words: "the whole tree", "all 4 shards". */
    coverage: z.string(),
    /** Documents checked against their schemas and invariants, and wallet folders among them. */
    files: z.number().int().min(0),
    wallets: z.number().int().min(0),
    /** The first failures (at most 20), and whether there were more. */
    failures: z.array(z.string()),
    truncated: z.boolean(),
    seconds: z.number().min(0),
    /** `verify --from`: the version proved in the store and what proving it read; null for a tree on disk. */
    store: z
      .object({
        version: z.string(),
        live: z.boolean(),
        shards: z.number().int().min(1),
        archives: z.number().int().min(0),
        members: z.number().int().min(0),
        membersRead: z.number().int().min(0),
        objectsRead: z.number().int().min(0),
        bytesRead: z.number().int().min(0),
        requests: z.number().int().min(0),
        sample: z
          .object({ size: z.number().int().min(1), seed: z.number().int().min(0) })
          .strict()
          .nullable(),
      })
      .strict()
      .nullable(),
  })
  .strict();
export type VerifySummaryJson = z.infer<typeof VerifySummaryJsonSchema>;
