import { z } from 'zod';
import { DateStringSchema, FiniteNumberSchema } from './common.ts';
import { TOKEN_KEYS } from './token-keys.ts';

const PositionSchema = z
  .object({
    token: z.enum(TOKEN_KEYS),
    chainId: z.number().int(),
    balance: z.number().positive().meta({ description: 'end-of-day balance, scaled by the token decimals' }),
    usdPerToken: FiniteNumberSchema.pipe(z.number().nonnegative()).meta({
      description: 'latest price dated on or before the day; 0 when there is none',
    }),
    valueUsd: FiniteNumberSchema.pipe(z.number().nonnegative()).meta({ description: 'balance * usdPerToken' }),
  })
  .strict()
  .meta({ id: 'Position' });

const DayRowSchema = z
  .object({
    date: DateStringSchema,
    totalValueUsd: FiniteNumberSchema.pipe(z.number().nonnegative()),
    positions: z.array(PositionSchema),
  })
  .strict()
  .meta({ id: 'DayRow' });

/** `GET /v1/address/{address}/portfolio/daily`: one row per closed New York day, oldest first. */
export const DailyPortfolioSchema = z
  .object({
    asOf: DateStringSchema.nullable().meta({ description: 'last closed New York day of the table; null when it has none' }),
    days: z.array(DayRowSchema),
  })
  .strict()
  .meta({ id: 'DailyPortfolio' });

export type Position = z.infer<typeof PositionSchema>;
export type DayRow = z.infer<typeof DayRowSchema>;
export type DailyPortfolio = z.infer<typeof DailyPortfolioSchema>;
