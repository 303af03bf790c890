/**
 * STAND-IN until the build writes the points documents itself: `v1/seasons.json`, each
 * participant's `v1/address/{a}/points.json` and `_snapshot/no-history/points.json`, derived from
 * the leaderboards of a built tree, with every number copied as its exact JSON text. Only valid
 * when every participant is in its leaderboard (at most 100 per season), which it checks.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse, stringify, type LosslessNumber } from 'lossless-json';

interface Board {
  season: LosslessNumber;
  asOf: string | null;
  totalParticipants: LosslessNumber;
  entries: { rank: LosslessNumber; user: string; totalPoints: LosslessNumber; dailyRate: LosslessNumber }[];
}

export function writePointsStandIn(tree: string, frozenSeasons: number[]): void {
  const meta = JSON.parse(fs.readFileSync(path.join(tree, '_snapshot/meta.json'), 'utf8')) as { seasons: number[] };
  const write = (file: string, document: unknown) => {
    fs.mkdirSync(path.dirname(path.join(tree, file)), { recursive: true });
    fs.writeFileSync(path.join(tree, file), stringify(document)!);
  };
  const seasons: unknown[] = [];
  const standings = new Map<string, unknown[]>();
  for (const season of meta.seasons) {
    const board = parse(fs.readFileSync(path.join(tree, `v1/leaderboard/s${season}.json`), 'utf8')) as Board;
    if (Number(board.totalParticipants.value) !== board.entries.length) {
      throw new Error(`points stand-in: season ${season} has participants beyond its leaderboard`);
    }
    seasons.push({ season: board.season, asOf: board.asOf, frozen: frozenSeasons.includes(season), totalParticipants: board.totalParticipants });
    for (const entry of board.entries) {
      const rows = standings.get(entry.user) ?? [];
      rows.push({ season: board.season, asOf: board.asOf, rank: entry.rank, totalPoints: entry.totalPoints, dailyRate: entry.dailyRate, totalParticipants: board.totalParticipants });
      standings.set(entry.user, rows);
    }
  }
  write('v1/seasons.json', { seasons });
  for (const [user, rows] of standings) write(`v1/address/${user}/points.json`, { seasons: rows });
  write('_snapshot/no-history/points.json', { seasons: [] });
}
