import { z } from 'zod';
import { DateStringSchema } from './common.ts';
import { SeasonCloseSchema } from './build-summary.ts';
import { NightKindSchema } from './night-kind.ts';

/** `prepare --summary-json FILE`: written once every shard folder is in place (docs/cli.md). */
export const PrepareSummaryJsonSchema = z
  .object({
    command: z.literal('prepare'),
    /** `--out`: the night folder, and its shard folders in shard order (each one `build --prepared` input). */
    out: z.string(),
    folders: z.array(z.string()),
    shards: z.number().int().min(1),
    night: NightKindSchema,
    now: z.string(),
    lastClosedDay: DateStringSchema,
    bytes: z.number().int().min(0),
    seconds: z.number().min(0),
    dailyAsOf: DateStringSchema.nullable(),
    seasons: z.array(SeasonCloseSchema),
    stageSeconds: z.record(z.string(), z.number().min(0)),
    peakRssBytes: z.number().int().min(0),
  })
  .strict();
export type PrepareSummaryJson = z.infer<typeof PrepareSummaryJsonSchema>;
