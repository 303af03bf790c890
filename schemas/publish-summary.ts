import { z } from 'zod';

const VersionIdSchema = z.string().regex(/^\d{4}-\d{2}-\d{2}-[0-9a-f]{16}$/);
const CountSchema = z.number().int().min(0);

/** One rule of the night's guard as judged (docs/reliability.md, "The night's guard"). */
const GuardRowSchema = z
  .object({
    rule: z.string(),
    /** The live version's figure (for day-change, the day before's), and this night's. */
    was: z.string(),
    is: z.string(),
    change: z.string(),
    threshold: z.string(),
    verdict: z.enum(['ok', 'refused', 'accepted', 'explained', 'not judged']),
    note: z.string().nullable(),
  })
  .strict();

/**
 * `publish --summary-json FILE`: what the closing summary says, written when the command ends
 * with a decision: a version live, a shard staged, or the night refused by the guard (then with
 * exit 1 and `outcome: "refused"`). docs/cli.md, "Machine-readable summaries".
 */
export const PublishSummaryJsonSchema = z
  .object({
    command: z.literal('publish'),
    /** What was asked: a whole tree published, one shard staged, a staged version committed, a rollback. */
    move: z.enum(['publish', 'stage', 'commit', 'rollback']),
    /** `live`: readers now see `version`; `staged`: the shard is stored, the live version untouched; `refused`: the guard kept the live version. */
    outcome: z.enum(['live', 'staged', 'refused']),
    /** Where, as `s3://BUCKET/PREFIX`. */
    target: z.string(),
    version: VersionIdSchema,
    /** The version live before this move (null: none was). */
    replaced: VersionIdSchema.nullable(),
    /** Nothing to do: the version was live (or the shard staged) already. */
    already: z.boolean(),
    /** The shard staged (K of N), or 1 of 1 for a whole tree; null for a commit or a rollback. */
    shard: z
      .object({ index: z.number().int().min(1), count: z.number().int().min(1) })
      .strict()
      .nullable(),
    /** Files of the tree (a commit: of all its shards); 0 for a rollback. */
    files: CountSchema,
    /**
     * Objects and bytes sent to the store; stored whole already (a run stopped midway sent them); copied within the
     * store from an earlier version rather than sent (0 while publish sends every archive it needs).
     */
    objects: z.object({ sent: CountSchema, skipped: CountSchema, copied: CountSchema }).strict(),
    bytes: z.object({ sent: CountSchema, skipped: CountSchema, copied: CountSchema }).strict(),
    seconds: z.number().min(0),
    /** The guard's rules as judged (null when nothing was judged: a stage, a rollback, a version live already). */
    guard: z
      .object({ refused: z.array(z.string()), rows: z.array(GuardRowSchema) })
      .strict()
      .nullable(),
    /** `--keep N`: the versions kept and removed afterwards. */
    keep: z
      .object({ kept: z.array(VersionIdSchema), removed: z.array(VersionIdSchema), objectsRemoved: CountSchema })
      .strict()
      .nullable(),
  })
  .strict();
export type PublishSummaryJson = z.infer<typeof PublishSummaryJsonSchema>;
