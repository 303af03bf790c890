import { z } from 'zod';
import { DateStringSchema, FiniteNumberSchema } from './common.ts';

/** How many closed days the summary keeps, the last one included: the guard's and the report's window. */
export const SUMMARY_DAYS = 35;

/**
 * `_snapshot/night/K-of-N.json`: the night at a glance, which `publish` compares with the live
 * version's before the pointer moves (docs/reliability.md#guard). The counts and
 * sums are those of the shard's own wallets (a whole tree is shard 1 of 1), so that the N shards of
 * one night add up to the whole; everything else is a fact of the whole export, the same in every
 * shard.
 */
export const NightSummarySchema = z
  .object({
    format: z.literal(1),
    shard: z.object({ index: z.number().int().min(1), count: z.number().int().min(1) }).strict(),
    lastClosedDay: DateStringSchema,
    /** The daily table's `asOf` (docs/semantics.md#daily-portfolio). */
    asOf: DateStringSchema.nullable(),
    /** Wallets with a balance history (a portfolio document). */
    wallets: z.number().int().min(0),
    /** Positions (wallet x chain x token with a non-zero balance) on the last closed day. */
    positions: z.number().int().min(0),
    /**
     * The last closed day's positions without a price, not every day's (the key is kept as the
     * trees already written spell it; the build's summary counts every day's as
     * `dailyPositionsWithoutPrice`).
     */
    positionsWithoutPrice: z
      .number()
      .int()
      .min(0)
      .describe(
        "The last closed day's positions without a price (not every day's): none dated on or before the day, " +
          'or, when the export has no price at all dated on it (a feed that stopped), none dated on it.',
      ),
    /** The last SUMMARY_DAYS closed days, oldest first, each with the sum of every wallet's `totalValueUsd`. */
    days: z.array(z.object({ date: DateStringSchema, totalValueUsd: FiniteNumberSchema }).strict()).length(SUMMARY_DAYS),
    seasons: z.array(
      z
        .object({
          season: z.number().int().min(1),
          frozen: z.boolean(),
          asOf: DateStringSchema.nullable(),
          /** The leaderboard's `totalParticipants` (every wallet, whatever the shard). */
          participants: z.number().int().min(0),
          /** sha256 of the leaderboard document's bytes. */
          leaderboardSha256: z.string().regex(/^[0-9a-f]{64}$/),
          /** Participants on each day of `days` (a day after the season's asOf counts as of asOf), the shard's own wallets. */
          participantsByDay: z.array(z.number().int().min(0)).length(SUMMARY_DAYS),
        })
        .strict(),
    ),
  })
  .strict();

export type NightSummary = z.infer<typeof NightSummarySchema>;
