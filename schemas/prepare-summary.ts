import { z } from 'zod';
import { DateStringSchema } from './common.ts';
import { SeasonCloseSchema } from './build-summary.ts';

/**
 * What kind of night a prepare made: the whole history computed (`full`), or the previous
 * night's folder reused up to a day and the days from it recomputed (`incremental`); `why` says
 * in words what decided it.
 */
export const NightKindSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('full'), why: z.string() }).strict(),
  z
    .object({
      kind: z.literal('incremental'),
      /** The previous night (`--since`) whose unchanged days were reused. */
      from: z.string(),
      daysRecomputed: z.number().int().min(0),
      /** The first day recomputed. */
      fromDay: DateStringSchema,
      why: z.string(),
    })
    .strict(),
]);
export type NightKind = z.infer<typeof NightKindSchema>;

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
