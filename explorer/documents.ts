/**
 * The shapes of the /v1 documents as the page holds them: every JSON number kept as its exact
 * text (a LosslessNumber), because balances carry more digits than a double and the page shows
 * them exactly as the JSON writes them. The shapes come from the response schemas; only the
 * numbers' type differs.
 */
import type { LosslessNumber } from 'lossless-json';
import type { DailyPortfolio } from '../schemas/daily-portfolio.ts';
import type { Leaderboard } from '../schemas/leaderboard.ts';
import type { PortfolioHistory } from '../schemas/portfolio-history.ts';

export type ExactNumbers<T> = T extends number
  ? LosslessNumber
  : T extends readonly (infer Item)[]
    ? ExactNumbers<Item>[]
    : T extends object
      ? { [Key in keyof T]: ExactNumbers<T[Key]> }
      : T;

export type ExactDailyPortfolio = ExactNumbers<DailyPortfolio>;
export type ExactDayRow = ExactDailyPortfolio['days'][number];
export type ExactLeaderboard = ExactNumbers<Leaderboard>;
export type ExactPortfolioHistory = ExactNumbers<PortfolioHistory>;

/** `GET /v1/seasons` (v1.2): every known season with the values of its leaderboard. */
export interface ExactSeasons {
  seasons: { season: LosslessNumber; asOf: string | null; frozen: boolean; totalParticipants: LosslessNumber }[];
}

/** `GET /v1/address/{address}/points` (v1.2): the wallet's standing in each season it takes part in. */
export interface ExactPointsStanding {
  seasons: {
    season: LosslessNumber;
    asOf: string | null;
    rank: LosslessNumber;
    totalPoints: LosslessNumber;
    dailyRate: LosslessNumber;
    totalParticipants: LosslessNumber;
  }[];
}

/** `GET /v1/address/{address}/points/history` (v1.3): per season, the wallet's points, total and rank of each day. */
export interface ExactPointsHistory {
  seasons: {
    season: LosslessNumber;
    asOf: string;
    days: { date: string; points: LosslessNumber; totalPoints: LosslessNumber; rank: LosslessNumber | null }[];
  }[];
}

/** What the build writes into index.html: facts about the whole snapshot that no /v1 document states. */
export interface SnapshotFacts {
  lastClosedDay: string;
  exampleWallet: string | null;
}
