/**
 * The client's part of the endpoint table (schemas/endpoints.ts): what each function asks for, and
 * its type. Written from the table by scripts/client-endpoints.ts (`npm run endpoints`), not by
 * hand: test/endpoints.test.ts fails when it is not what the table makes.
 */
import type { DailyPortfolio } from '../schemas/daily-portfolio.ts';
import type { Leaderboard } from '../schemas/leaderboard.ts';
import type { PointsHistory } from '../schemas/points-history.ts';
import type { PointsStanding } from '../schemas/points.ts';
import type { PortfolioHistory } from '../schemas/portfolio-history.ts';
import type { SeasonsIndex } from '../schemas/seasons.ts';

export type { PortfolioHistory, DailyPortfolio, Leaderboard, PointsStanding, PointsHistory, SeasonsIndex };

/** Each function's path under the base (`{name}`: its arguments, in order), and whether it takes a range of days. */
export const ROUTES = {
  portfolio: { path: 'v1/address/{address}/portfolio', range: false },
  daily: { path: 'v1/address/{address}/portfolio/daily', range: true },
  leaderboard: { path: 'v1/leaderboard/s{season}', range: false },
  points: { path: 'v1/address/{address}/points', range: false },
  pointsHistory: { path: 'v1/address/{address}/points/history', range: true },
  seasons: { path: 'v1/seasons', range: false },
} as const;

/** One function per endpoint, given the options of a call and of a call over a range of days (client/index.ts's `Client`). */
export interface EndpointFunctions<Call, Range> {
  /** `GET /v1/address/{address}/portfolio`: balance snapshots per chain and token. */
  portfolio(address: string, options?: Call): Promise<PortfolioHistory>;
  /** `GET /v1/address/{address}/portfolio/daily`: end-of-day balances and values, within the range if given. */
  daily(address: string, options?: Range): Promise<DailyPortfolio>;
  /** `GET /v1/leaderboard/s{season}`: a season's top 100 and its multipliers. */
  leaderboard(season: number, options?: Call): Promise<Leaderboard>;
  /** `GET /v1/address/{address}/points`: the wallet's standing in every season. */
  points(address: string, options?: Call): Promise<PointsStanding>;
  /** `GET /v1/address/{address}/points/history`: per season, the wallet's points, total and rank of each day in the range. */
  pointsHistory(address: string, options?: Range): Promise<PointsHistory>;
  /** `GET /v1/seasons`: every known season. */
  seasons(options?: Call): Promise<SeasonsIndex>;
}
