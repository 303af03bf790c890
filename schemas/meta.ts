import { z } from 'zod';
import { DateStringSchema, LowerCaseAddressSchema } from './common.ts';

/**
 * `_snapshot/meta.json`: facts the server and `verify` need about the whole tree. Identical in
 * every shard of a sharded build, so it holds nothing shard-specific, and not the build instant
 * either: builds of the same exports on the same day write the same bytes (README, Decisions).
 */
export const SnapshotMetaSchema = z
  .object({
    format: z.literal(1),
    lastClosedDay: DateStringSchema,
    dailyAsOf: DateStringSchema.nullable(),
    seasons: z.array(z.number().int().min(1)),
    exampleWallet: LowerCaseAddressSchema.nullable().meta({
      description: 'a wallet with history, one with venue-B sub-accounts when there is one (for the preview examples)',
    }),
  })
  .strict();

export type SnapshotMeta = z.infer<typeof SnapshotMetaSchema>;
