/**
 * `verify` for the points standings and the seasons index: each wallet's points file agrees with
 * the leaderboards (asOf, totalParticipants, and for a wallet in a leaderboard's first 100 its
 * rank and totals), every leaderboard entry has its points file, the seasons index repeats the
 * leaderboards; and for a whole tree (not one shard of it) every participant has a file and
 * every rank is the competition rank among all of them.
 */
import type { z } from 'zod';
import { shardOf } from '../core/shard.ts';
import { competitionRanks } from '../core/competition-rank.ts';
import { LEADERBOARD_SIZE, type Leaderboard, type LeaderboardEntry } from '../schemas/leaderboard.ts';
import { PointsStandingSchema, type PointsStanding } from '../schemas/points.ts';
import { SeasonsIndexSchema } from '../schemas/seasons.ts';
import { NO_HISTORY_POINTS_FILE, SEASONS_FILE, pointsFile } from './layout.ts';

type Read = <T>(file: string, schema: z.ZodType<T>) => Promise<T | null>;
type Fail = (message: string) => void;

interface SeasonTally {
  board: Leaderboard;
  entries: Map<string, LeaderboardEntry>;
  /** Entries whose points file was seen. */
  seen: Set<string>;
  /** Every points row of the season: its totalPoints and rank, for the ranks of a whole tree. */
  totals: number[];
  ranks: number[];
}

/**
 * What checkWallet gathered about one season, handed from a verify thread (which checks a slice of
 * the wallets) to the verifier of the whole tree, for the rules across all wallets.
 */
export interface SeasonTallyPart {
  season: number;
  totals: number[];
  ranks: number[];
  seen: string[];
}

/** Some of the shards of a sharded build. */
export interface TreePart {
  count: number;
  indexes: number[];
}

export class PointsVerifier {
  private readonly seasons = new Map<number, SeasonTally>();

  /** `boards`: the known seasons' leaderboards that were read and match their schema. */
  /**
   * `part`: the shards of a sharded build the tree holds, when it is not the whole tree (from
   * `--shard K/N`, or from the build's records in the tree); null for a whole tree.
   */
  /** `partUnknown`: the tree has no records of its own to tell a shard from the whole tree. */
  constructor(
    boards: Leaderboard[],
    private readonly part: TreePart | null,
    private readonly fail: Fail,
    private readonly partUnknown = false,
  ) {
    for (const board of boards) {
      this.seasons.set(board.season, {
        board,
        entries: new Map(board.entries.map((entry) => [entry.user, entry])),
        seen: new Set(),
        totals: [],
        ranks: [],
      });
    }
  }

  /** The seasons index and the answer for an address without a points file. */
  async checkSharedFiles(read: Read, knownSeasons: number[]): Promise<void> {
    const index = await read(SEASONS_FILE, SeasonsIndexSchema);
    if (index) {
      const listed = index.seasons.map((row) => row.season);
      if (listed.join() !== knownSeasons.join())
        this.fail(
          `${SEASONS_FILE}: lists seasons ${listed.join(', ') || 'none'}, expected the known seasons ${knownSeasons.join(', ') || 'none'} in order`,
        );
      for (const row of index.seasons) {
        const board = this.seasons.get(row.season)?.board;
        if (board && (row.asOf !== board.asOf || row.totalParticipants !== board.totalParticipants)) {
          this.fail(
            `${SEASONS_FILE}: season ${row.season} has asOf ${row.asOf} and ${row.totalParticipants} participants, its leaderboard ${board.asOf} and ${board.totalParticipants}`,
          );
        }
      }
    }
    const noPoints = await read(NO_HISTORY_POINTS_FILE, PointsStandingSchema);
    if (noPoints && noPoints.seasons.length > 0) this.fail(`${NO_HISTORY_POINTS_FILE}: must be {"seasons":[]}`);
  }

  /** One wallet's points file, already checked against its schema. */
  checkWallet(address: string, standing: PointsStanding): void {
    const file = pointsFile(address);
    if (standing.seasons.length === 0) this.fail(`${file}: a wallet that takes part in no season has no points file`);
    if (!this.holds(address)) this.fail(`${file}: the wallet is not in shard ${this.part!.indexes.join(', ')} of ${this.part!.count}`);
    standing.seasons.forEach((row, i) => {
      if (i > 0 && standing.seasons[i - 1]!.season >= row.season) this.fail(`${file}: seasons are not in ascending order`);
      const tally = this.seasons.get(row.season);
      // A season without a readable leaderboard has been reported already.
      if (!tally) return;
      const { board } = tally;
      if (row.asOf !== board.asOf || row.totalParticipants !== board.totalParticipants) {
        this.fail(
          `${file}: season ${row.season} has asOf ${row.asOf} and ${row.totalParticipants} participants, its leaderboard ${board.asOf} and ${board.totalParticipants}`,
        );
      }
      if (row.rank > board.totalParticipants)
        this.fail(`${file}: season ${row.season}: rank ${row.rank} of ${board.totalParticipants} participants`);
      tally.totals.push(row.totalPoints);
      tally.ranks.push(row.rank);
      const entry = tally.entries.get(address);
      if (entry) {
        tally.seen.add(address);
        if (entry.rank !== row.rank || entry.totalPoints !== row.totalPoints || entry.dailyRate !== row.dailyRate) {
          this.fail(
            `${file}: season ${row.season}: rank ${row.rank}, totalPoints ${row.totalPoints}, dailyRate ${row.dailyRate}; the leaderboard has ${entry.rank}, ${entry.totalPoints}, ${entry.dailyRate}`,
          );
        }
        return;
      }
      // Not an entry: the leaderboard lists every participant, or this one comes after the last
      // entry in (totalPoints descending, address) order, with a rank that agrees with it.
      const last = board.entries.at(-1);
      if (board.entries.length < LEADERBOARD_SIZE || !last) {
        this.fail(`${file}: season ${row.season}: a participant missing from the leaderboard, which lists all ${board.totalParticipants}`);
      } else if (row.totalPoints > last.totalPoints || (row.totalPoints === last.totalPoints && address < last.user)) {
        this.fail(
          `${file}: season ${row.season}: totalPoints ${row.totalPoints} puts the wallet in the leaderboard's first ${LEADERBOARD_SIZE}, which does not list it`,
        );
      } else if (row.totalPoints === last.totalPoints ? row.rank !== last.rank : row.rank <= LEADERBOARD_SIZE) {
        this.fail(
          `${file}: season ${row.season}: rank ${row.rank} disagrees with the leaderboard's last entry (rank ${last.rank}, totalPoints ${last.totalPoints})`,
        );
      }
    });
  }

  /** What checkWallet gathered since the last call (a verify thread's slice of the wallets). */
  takeTallies(): SeasonTallyPart[] {
    const parts: SeasonTallyPart[] = [];
    for (const [season, tally] of this.seasons) {
      if (tally.totals.length === 0 && tally.seen.size === 0) continue;
      parts.push({ season, totals: tally.totals, ranks: tally.ranks, seen: [...tally.seen] });
      tally.totals = [];
      tally.ranks = [];
      tally.seen.clear();
    }
    return parts;
  }

  /** Adds what a verify thread gathered (takeTallies) to this verifier's, before finish(). */
  addTallies(parts: SeasonTallyPart[]): void {
    for (const part of parts) {
      const tally = this.seasons.get(part.season);
      if (!tally) continue;
      for (let i = 0; i < part.totals.length; i++) {
        tally.totals.push(part.totals[i]!);
        tally.ranks.push(part.ranks[i]!);
      }
      for (const user of part.seen) tally.seen.add(user);
    }
  }

  /** Whether the tree holds the wallet's files: a whole tree holds every wallet's. */
  private holds(address: string): boolean {
    return this.part === null || this.part.indexes.includes(shardOf(address, this.part.count));
  }

  /** After every wallet: the entries without a points file; for a whole tree, counts and ranks. */
  finish(): void {
    for (const [season, tally] of this.seasons) {
      const listed = tally.totals.length;
      if (this.part ? listed > tally.board.totalParticipants : listed !== tally.board.totalParticipants) {
        this.fail(
          `season ${season}: ${listed} points files list it, its leaderboard counts ${tally.board.totalParticipants} participants${!this.part && this.partUnknown ? ' (a tree of one shard is verified with --shard K/N)' : ''}`,
        );
      } else if (!this.part) {
        this.checkCompetitionRanks(season, tally);
      }
      for (const user of tally.entries.keys()) {
        if (!tally.seen.has(user) && this.holds(user)) {
          this.fail(`${pointsFile(user)}: missing, or without season ${season}, for a wallet in the season's leaderboard`);
        }
      }
    }
  }

  /** Every participant's rank is its competition rank among all of them (core/competition-rank.ts). */
  private checkCompetitionRanks(season: number, tally: SeasonTally): void {
    const expected = competitionRanks(tally.totals);
    // The wrong rank of the most points is told (the first in the leaderboard's order).
    let wrong: number | undefined;
    for (let i = 0; i < expected.length; i++) {
      if (tally.ranks[i] !== expected[i] && (wrong === undefined || expected[i]! < expected[wrong]!)) wrong = i;
    }
    if (wrong !== undefined) {
      this.fail(
        `season ${season}: a participant with totalPoints ${tally.totals[wrong]} has rank ${tally.ranks[wrong]}, expected ${expected[wrong]} (participants with more points: ${expected[wrong]! - 1})`,
      );
    }
  }
}
