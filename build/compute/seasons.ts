/**
 * The seasons index (GET /v1/seasons): every known season with the values of its leaderboard, and
 * whether it is frozen (its `as_of` is set).
 */
import type { Database } from '../database.ts';
import type { Leaderboard } from '../../schemas/leaderboard.ts';
import type { SeasonsIndex } from '../../schemas/seasons.ts';

export async function computeSeasonsIndex(db: Database, leaderboards: Leaderboard[]): Promise<SeasonsIndex> {
  const frozen = await db.rows<{ season: number; frozen: boolean }>(
    'SELECT season::INTEGER AS season, as_of IS NOT NULL AS frozen FROM seasons',
  );
  const isFrozen = new Map(frozen.map((row) => [row.season, row.frozen]));
  // The leaderboards come one per known season, in season order.
  return {
    seasons: leaderboards.map((board) => ({
      season: board.season,
      asOf: board.asOf,
      frozen: isFrozen.get(board.season)!,
      totalParticipants: board.totalParticipants,
    })),
  };
}

/** Each season's line of a closing summary (build's and prepare's): its `asOf` and participants. */
export function seasonLines(leaderboards: Leaderboard[]): { season: number; asOf: string | null; participants: number }[] {
  return leaderboards.map((board) => ({ season: board.season, asOf: board.asOf, participants: board.totalParticipants }));
}
