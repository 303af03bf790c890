import { z } from 'zod';
import { DateStringSchema } from './common.ts';
import { NightSummarySchema } from './night-summary.ts';

/** One season's leaderboard as a night closed it: its `asOf` and its participants. */
export const SeasonCloseSchema = z
  .object({ season: z.number().int().min(1), asOf: DateStringSchema.nullable(), participants: z.number().int().min(0) })
  .strict();

/**
 * `build --summary-json FILE`: what the closing summary says, written once the tree is live at
 * `--out` (docs/cli.md, "Machine-readable summaries"). A build does not name the version a
 * publish will store it under: `publish --summary-json` does.
 */
export const BuildSummaryJsonSchema = z
  .object({
    command: z.literal('build'),
    /** `--out`, and the build folder it now points at (and the one it replaced, kept for a rollback). */
    out: z.string(),
    build: z.string(),
    previousBuild: z.string().nullable(),
    /** The build instant (`--now`) and the last closed day it gives. */
    now: z.string(),
    lastClosedDay: DateStringSchema,
    wallets: z.number().int().min(0),
    files: z.number().int().min(0),
    bytes: z.number().int().min(0),
    seconds: z.number().min(0),
    /** The daily documents' `asOf`, and each leaderboard's. */
    dailyAsOf: DateStringSchema.nullable(),
    seasons: z.array(SeasonCloseSchema),
    balanceRows: z.number().int().min(0),
    /** Positions without a price in the daily documents, over every day (the warning's count). */
    dailyPositionsWithoutPrice: z.number().int().min(0),
    warnings: z.array(z.string()),
    stageSeconds: z.record(z.string(), z.number().min(0)),
    peakRssBytes: z.number().int().min(0),
    /** The night's summary the build wrote into the tree: what publish's guard compares. */
    night: NightSummarySchema,
  })
  .strict();
export type BuildSummaryJson = z.infer<typeof BuildSummaryJsonSchema>;
