/**
 * The night's summary file (docs/reliability.md#the-nights-summary, tree/night-summary.ts): the figures compute/night-summary.ts
 * found, with each season's leaderboard digest taken from the very bytes shared.ts writes, into the
 * tree through the writer that records every file in the manifest (so `verify` covers it).
 */
import crypto from 'node:crypto';
import type { TreeWriter } from './tree-writer.ts';
import type { Leaderboard } from '../../schemas/leaderboard.ts';
import type { SeasonsIndex } from '../../schemas/seasons.ts';
import type { NightSummary } from '../../schemas/night-summary.ts';
import { nightSummaryFile, nightSummaryText } from '../../tree/night-summary.ts';
import type { Shard } from '../../core/shard.ts';
import type { NightFigures } from '../compute/night-summary.ts';

export async function writeNightSummary(
  writer: TreeWriter,
  facts: { shard: Shard | null; lastClosedDay: string; dailyAsOf: string | null; leaderboards: Leaderboard[]; seasonsIndex: SeasonsIndex },
  figures: NightFigures,
): Promise<NightSummary> {
  const shard = facts.shard ?? { index: 1, count: 1 };
  const summary: NightSummary = {
    format: 1,
    shard: { index: shard.index, count: shard.count },
    lastClosedDay: facts.lastClosedDay,
    asOf: facts.dailyAsOf,
    wallets: figures.wallets,
    positions: figures.positions,
    positionsWithoutPrice: figures.positionsWithoutPrice,
    days: figures.days,
    seasons: facts.leaderboards.map((board) => ({
      season: board.season,
      frozen: facts.seasonsIndex.seasons.find((season) => season.season === board.season)!.frozen,
      asOf: board.asOf,
      participants: board.totalParticipants,
      // shared.ts writes a leaderboard as JSON.stringify of the document: these are its bytes.
      leaderboardSha256: crypto.createHash('sha256').update(JSON.stringify(board)).digest('hex'),
      participantsByDay: figures.participantsByDay.get(board.season) ?? figures.days.map(() => 0),
    })),
  };
  await writer.write(nightSummaryFile(shard), nightSummaryText(summary));
  return summary;
}
