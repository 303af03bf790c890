/**
 * The shapes of the /v1 documents as the page holds them: every JSON number kept as its exact
 * text (a LosslessNumber), because balances carry more digits than a double and the page shows
 * them exactly as the JSON writes them. Each is its endpoint's document (the endpoint table,
 * schemas/endpoints.ts); only the numbers' type differs.
 */
import type { LosslessNumber } from 'lossless-json';
import type { DocumentOf, EndpointName } from '../schemas/endpoints.ts';

type ExactNumbers<T> = T extends number
  ? LosslessNumber
  : T extends readonly (infer Item)[]
    ? ExactNumbers<Item>[]
    : T extends object
      ? { [Key in keyof T]: ExactNumbers<T[Key]> }
      : T;

/** The document of an endpoint, with exact numbers. */
type ExactDocument<Name extends EndpointName> = ExactNumbers<DocumentOf<Name>>;

export type ExactPortfolioHistory = ExactDocument<'portfolio'>;
export type ExactDailyPortfolio = ExactDocument<'daily'>;
export type ExactDayRow = ExactDailyPortfolio['days'][number];
export type ExactLeaderboard = ExactDocument<'leaderboard'>;
export type ExactPointsStanding = ExactDocument<'points'>;
export type ExactPointsHistory = ExactDocument<'pointsHistory'>;
export type ExactSeasons = ExactDocument<'seasons'>;

/** What the build writes into index.html: facts about the whole snapshot that no /v1 document states. */
export interface SnapshotFacts {
  lastClosedDay: string;
  exampleWallet: string | null;
}
