import { z } from 'zod';
import { DateStringSchema, LowerCaseAddressSchema } from './common.ts';

/**
 * `_snapshot/meta.json`: facts the server and `verify` need about the whole tree. Identical in
 * every shard of a sharded build, so it holds nothing shard-specific.
 */
export const SnapshotMetaSchema = z
  .object({
    format: z.literal(1),
    now: z.string().meta({ description: 'the build instant (--now), ISO 8601 UTC' }),
    lastClosedDay: DateStringSchema,
    dailyAsOf: DateStringSchema.nullable(),
    seasons: z.array(z.number().int().min(1)),
    exampleWallet: LowerCaseAddressSchema.nullable().meta({
      description: 'a wallet with history, one with venue-B sub-accounts when there is one (for the preview examples)',
    }),
  })
  .strict();

export type SnapshotMeta = z.infer<typeof SnapshotMetaSchema>;
