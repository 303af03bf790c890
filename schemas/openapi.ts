/**
 * The machine-readable description of the interface (OpenAPI 3.1, `info.version` 1.3.0: 1.1.0
 * plus a wallet's points standing and the seasons index (1.2.0), plus a wallet's points history
 * (1.3.0), every earlier answer unchanged),
 * generated from the same zod schemas that check every file of the tree.
 */
import { z } from 'zod';
import { PortfolioHistorySchema } from './portfolio-history.ts';
import { DailyPortfolioSchema } from './daily-portfolio.ts';
import { LeaderboardSchema } from './leaderboard.ts';
import { PointsStandingSchema } from './points.ts';
import { PointsHistorySchema } from './points-history.ts';
import { SeasonsIndexSchema } from './seasons.ts';
import { ErrorBodySchema } from './error.ts';
import { ADDRESS_PATTERN, DATE_PATTERN, SEASON_SEGMENT_PATTERN } from './common.ts';

export const API_VERSION = '1.3.0';

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
const json = (id: string, description: string) => ({ description, content: { 'application/json': { schema: ref(id) } } });
const errors = {
  '400': json('Error', 'malformed request (see the message)'),
  '404': json('Error', 'no such path'),
  '405': json('Error', 'a method other than GET or HEAD'),
};
const addressParameter = {
  name: 'address',
  in: 'path',
  required: true,
  description: 'wallet address, any letter case',
  schema: { type: 'string', pattern: ADDRESS_PATTERN.source },
};
const dayParameter = (name: string, description: string) => ({
  name,
  in: 'query',
  required: false,
  description,
  schema: { type: 'string', pattern: DATE_PATTERN.source },
});

export function openApiDocument(): Record<string, unknown> {
  // Every schema given an id with .meta({ id }) becomes a component; the response shapes are
  // imported above so that they are registered.
  void [
    PortfolioHistorySchema,
    DailyPortfolioSchema,
    LeaderboardSchema,
    PointsStandingSchema,
    PointsHistorySchema,
    SeasonsIndexSchema,
    ErrorBodySchema,
  ];
  const generated = z.toJSONSchema(z.globalRegistry, { target: 'draft-2020-12', uri: (id) => `#/components/schemas/${id}` }) as {
    schemas: Record<string, Record<string, unknown>>;
  };
  // The registry lists schemas in the order their modules were first imported, which depends on
  // what else the program loaded: sorted, the document's bytes depend on the schemas alone.
  const schemas = Object.fromEntries(Object.entries(generated.schemas).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  // Each component is embedded in the document, so its own $schema/$id are noise there.
  for (const schema of Object.values(schemas)) {
    delete schema.$schema;
    delete schema.$id;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Wallet portfolio and points leaderboard',
      version: API_VERSION,
      description: 'Read-only JSON. Day boundaries are New York calendar days; the current New York day is never reported as closed.',
    },
    paths: {
      '/v1/address/{address}/portfolio': {
        get: {
          operationId: 'getPortfolioHistory',
          summary: 'Balance snapshots per chain and token (venue-B sub-accounts attributed to the wallet)',
          parameters: [addressParameter],
          responses: { '200': json('PortfolioHistory', 'the history; {} for a wallet without history'), ...errors },
        },
      },
      '/v1/address/{address}/portfolio/daily': {
        get: {
          operationId: 'getDailyPortfolio',
          summary: 'End-of-day balances and dollar values for every closed New York day',
          parameters: [
            addressParameter,
            dayParameter('from', 'first day to include (inclusive)'),
            dayParameter('to', 'last day to include (inclusive); from must not be later than to'),
          ],
          responses: { '200': json('DailyPortfolio', 'the days in range; asOf is unchanged by from/to'), ...errors },
        },
      },
      '/v1/leaderboard/{season}': {
        get: {
          operationId: 'getLeaderboard',
          summary: 'Top 100 wallets of a season by points, with its multiplier schedule',
          parameters: [
            {
              name: 'season',
              in: 'path',
              required: true,
              description: 's followed by the season number',
              schema: { type: 'string', pattern: SEASON_SEGMENT_PATTERN.source },
            },
          ],
          responses: { '200': json('Leaderboard', 'the leaderboard'), ...errors, '400': json('Error', 'malformed or unknown season') },
        },
      },
      '/v1/address/{address}/points': {
        get: {
          operationId: 'getPointsStanding',
          summary: "The wallet's rank, points and daily rate in every season it takes part in (added in 1.2.0)",
          parameters: [addressParameter],
          responses: {
            '200': json('PointsStanding', 'one row per season with points, by season; {"seasons": []} for a wallet without points'),
            ...errors,
          },
        },
      },
      '/v1/address/{address}/points/history': {
        get: {
          operationId: 'getPointsHistory',
          summary: "The wallet's points, running total and rank on every day of every season it takes part in (added in 1.3.0)",
          parameters: [
            addressParameter,
            dayParameter('from', 'first day to include (inclusive), in every season'),
            dayParameter('to', 'last day to include (inclusive); from must not be later than to'),
          ],
          responses: {
            '200': json(
              'PointsHistory',
              'one entry per season with points, by season, its days in range (a season keeps its entry with days [] when none is); {"seasons": []} for a wallet without points',
            ),
            ...errors,
          },
        },
      },
      '/v1/seasons': {
        get: {
          operationId: 'getSeasons',
          summary: 'Every known season with its asOf, whether it is frozen, and its participants (added in 1.2.0)',
          responses: { '200': json('SeasonsIndex', 'every known season, by season'), '404': errors['404'], '405': errors['405'] },
        },
      },
    },
    components: { schemas },
  };
}
