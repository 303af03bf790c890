import { z } from 'zod';
import { DateStringSchema } from './common.ts';

const SeasonSummarySchema = z
  .object({
    season: z.number().int().min(1),
    asOf: DateStringSchema.nullable().meta({ description: "the season's asOf, as in its leaderboard; null when it has no data" }),
    frozen: z.boolean().meta({ description: 'true when the season is frozen at a fixed day' }),
    totalParticipants: z.number().int().nonnegative(),
  })
  .strict()
  .meta({ id: 'SeasonSummary' });

/** `GET /v1/seasons` (v1.2): every known season, by season, with the leaderboard's values. */
export const SeasonsIndexSchema = z
  .object({ seasons: z.array(SeasonSummarySchema) })
  .strict()
  .meta({ id: 'SeasonsIndex' });

export type SeasonSummary = z.infer<typeof SeasonSummarySchema>;
export type SeasonsIndex = z.infer<typeof SeasonsIndexSchema>;
