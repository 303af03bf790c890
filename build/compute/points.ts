/**
 * The points standing of one wallet (GET /v1/address/{address}/points): every participant's rank,
 * totals and daily rate in each season, read from the `participants` table that the leaderboards
 * are cut from (leaderboards.ts). A wallet's standing and its leaderboard entry are one
 * computation, so they cannot disagree; `asOf` and `totalParticipants` are taken from the
 * leaderboards.
 */
import type { Leaderboard } from '../../schemas/leaderboard.ts';
import type { SeasonStanding } from '../../schemas/points.ts';
import type { Database } from '../database.ts';
import { type Shard, shardFilterSql } from '../../core/shard.ts';
import { walletOfSeriesSql } from './series-key.ts';

/**
 * One row per (participant, season) in address then season order, the order of the documents'
 * rows; `new_folder` is true for a participant without balance history, whose folder the wallet
 * stage did not make.
 */
export function standingsSql(inShard: string): string {
  return `
    SELECT p.address, p.season::INTEGER AS season, p.rank::INTEGER AS rank, p.total_points, p.daily_rate,
           h.address IS NULL AS new_folder
    FROM participants p
    LEFT JOIN (
      SELECT a.address FROM addresses a
      SEMI JOIN (SELECT DISTINCT ${walletOfSeriesSql('series')} AS id FROM snapshots) w ON w.id = a.id
    ) h ON h.address = p.address
    WHERE ${inShard}
    ORDER BY p.address, p.season`;
}

/** What a season's rows share, as its leaderboard says it. */
export type SeasonFacts = Map<number, { asOf: string; totalParticipants: number }>;

export function seasonFactsOf(leaderboards: Leaderboard[]): SeasonFacts {
  const facts: SeasonFacts = new Map();
  // A season without a day has no participants, so none of its rows is ever asked for.
  for (const board of leaderboards)
    if (board.asOf !== null) facts.set(board.season, { asOf: board.asOf, totalParticipants: board.totalParticipants });
  return facts;
}

export function standingRow(facts: SeasonFacts, season: number, rank: number, totalPoints: number, dailyRate: number): SeasonStanding {
  const { asOf, totalParticipants } = facts.get(season)!;
  return { season, asOf, rank, totalPoints, dailyRate, totalParticipants };
}

/** The participants of any season among the shard's wallets: how many points files the build writes (and history files). */
export async function countParticipants(db: Database, shard: Shard | null): Promise<number> {
  const [{ participants } = { participants: 0 }] = await db.rows<{ participants: number }>(
    `SELECT count(DISTINCT p.address)::INTEGER AS participants FROM participants p WHERE ${shardFilterSql(shard, 'p.address')}`,
  );
  return participants;
}
