import { z } from 'zod';

/**
 * `verify --summary-json FILE`: written whether the tree passes or not (docs/cli.md), before the
 * command exits (0 when `ok`, 1 when not).
 */
export const VerifySummaryJsonSchema = z
  .object({
    command: z.literal('verify'),
    ok: z.boolean(),
    /** What was checked: the `--dir` folder. */
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
  })
  .strict();
export type VerifySummaryJson = z.infer<typeof VerifySummaryJsonSchema>;
