import { z } from 'zod';
import { DateStringSchema, FiniteNumberSchema, LowerCaseAddressSchema } from './common.ts';

/** A leaderboard lists the first 100 participants. */
export const LEADERBOARD_SIZE = 100;

const MultiplierSchema = z
  .object({
    position: z.string().meta({ example: 'hold_uty' }),
    multiplier: FiniteNumberSchema,
    firstDay: DateStringSchema,
    lastDay: DateStringSchema,
  })
  .strict()
  .meta({ id: 'Multiplier' });

const LeaderboardEntrySchema = z
  .object({
    rank: z.number().int().min(1).meta({ description: 'competition rank: 1 + participants with more points' }),
    user: LowerCaseAddressSchema,
    totalPoints: FiniteNumberSchema.pipe(z.number().positive()),
    dailyRate: FiniteNumberSchema.meta({ description: 'points earned on the asOf day' }),
  })
  .strict()
  .meta({ id: 'LeaderboardEntry' });

/** `GET /v1/leaderboard/s{N}`. */
export const LeaderboardSchema = z
  .object({
    season: z.number().int().min(1),
    asOf: DateStringSchema.nullable(),
    totalParticipants: z.number().int().nonnegative(),
    multipliers: z.array(MultiplierSchema),
    entries: z.array(LeaderboardEntrySchema).max(LEADERBOARD_SIZE),
  })
  .strict()
  .meta({ id: 'Leaderboard' });

export type Multiplier = z.infer<typeof MultiplierSchema>;
export type LeaderboardEntry = z.infer<typeof LeaderboardEntrySchema>;
export type Leaderboard = z.infer<typeof LeaderboardSchema>;
