import { z } from 'zod';
import { DateStringSchema, FiniteNumberSchema } from './common.ts';

/** One day of a wallet's season: its points that day, its running total, and its rank on that day. */
const PointsHistoryDaySchema = z
  .object({
    date: DateStringSchema,
    points: FiniteNumberSchema.meta({ description: "the sum of the wallet's points dated this day (0 when none)" }),
    totalPoints: FiniteNumberSchema.meta({ description: "the sum of the wallet's points dated on or before this day" }),
    rank: z
      .number()
      .int()
      .min(1)
      .nullable()
      .meta({ description: 'competition rank on this day: 1 + wallets with a greater totalPoints that day; null when totalPoints <= 0' }),
  })
  .strict()
  .meta({ id: 'PointsHistoryDay' });

/** One season in which the wallet is a participant: every day from its first day with points to asOf. */
const SeasonHistorySchema = z
  .object({
    season: z.number().int().min(1),
    asOf: DateStringSchema.meta({ description: "the season's asOf, as in its leaderboard" }),
    days: z
      .array(PointsHistoryDaySchema)
      .meta({ description: "every day from the wallet's first day with points in the season to asOf, oldest first, no gaps" }),
  })
  .strict()
  .meta({ id: 'SeasonHistory' });

/**
 * `GET /v1/address/{address}/points/history` (v1.3): one entry per known season in which the
 * wallet is a participant (the seasons of its points standing), by season; `{"seasons": []}` for
 * any other address.
 */
export const PointsHistorySchema = z
  .object({ seasons: z.array(SeasonHistorySchema) })
  .strict()
  .meta({ id: 'PointsHistory' });

export type PointsHistoryDay = z.infer<typeof PointsHistoryDaySchema>;
export type SeasonHistory = z.infer<typeof SeasonHistorySchema>;
export type PointsHistory = z.infer<typeof PointsHistorySchema>;
