import { z } from 'zod';
import { DateStringSchema, FiniteNumberSchema } from './common.ts';

/** One season in which the wallet is a participant: the numbers its leaderboard has for it. */
const SeasonStandingSchema = z
  .object({
    season: z.number().int().min(1),
    asOf: DateStringSchema.meta({ description: "the season's asOf, as in its leaderboard" }),
    rank: z.number().int().min(1).meta({ description: 'competition rank among all participants: 1 + participants with more points' }),
    totalPoints: FiniteNumberSchema.pipe(z.number().positive()),
    dailyRate: FiniteNumberSchema.meta({ description: 'points earned on the asOf day' }),
    totalParticipants: z.number().int().min(1),
  })
  .strict()
  .meta({ id: 'SeasonStanding' });

/**
 * `GET /v1/address/{address}/points` (v1.2): one row per known season in which the wallet is a
 * participant, by season; `{"seasons": []}` for any other address.
 */
export const PointsStandingSchema = z
  .object({ seasons: z.array(SeasonStandingSchema) })
  .strict()
  .meta({ id: 'PointsStanding' });

export type SeasonStanding = z.infer<typeof SeasonStandingSchema>;
export type PointsStanding = z.infer<typeof PointsStandingSchema>;
