/**
 * The endpoint table: every `/v1` endpoint declared once, with its path and parameters, the
 * schema of its document, its answer for a value without a file of its own, whether it takes
 * `from`/`to` (and how its day rows are cut), its client function and its OpenAPI words. Where its
 * file lives follows from its path (`fileTemplate`). Everything else is derived from this table:
 * the handler's routes and 404 sentence (server/app.ts), the static hosts' rewrites and the
 * CloudFront function (tree/cdn-files.ts), the OpenAPI paths (schemas/openapi.ts), the client's
 * functions (client/endpoints.ts, written from this table by scripts/client-endpoints.ts), the
 * tree's paths (tree/layout.ts), and so the writers' paths, what verify expects in a wallet's
 * folder, and the explorer's document types. docs/architecture.md, "Adding an endpoint".
 *
 * The table lives in schemas/ because every folder that needs it may import it: the Worker (no
 * Node module is reached from here), tree/, the explorer (its types) and the client's validation.
 * The client's functions take what they need from the generated client/endpoints.ts instead, so
 * that an app's bundle carries neither zod nor this table (docs/decisions.md, "One endpoint table").
 */
import type { z } from 'zod';
import { DailyPortfolioSchema } from './daily-portfolio.ts';
import { LeaderboardSchema } from './leaderboard.ts';
import type { SnapshotMeta } from './meta.ts';
import { ADDRESS_PATTERN, SEASON_SEGMENT_PATTERN } from './patterns.ts';
import { PointsHistorySchema } from './points-history.ts';
import { PointsStandingSchema } from './points.ts';
import { PortfolioHistorySchema } from './portfolio-history.ts';
import { SeasonsIndexSchema } from './seasons.ts';
import { filterDaily } from '../tree/daily-rows.ts';
import { filterPointsHistory } from '../tree/points-history-rows.ts';

/**
 * The interface's version (OpenAPI's `info.version`): a minor step for each endpoint or field
 * added, every earlier answer unchanged (1.2.0 added the points standing and the seasons index,
 * 1.3.0 the points history).
 */
export const API_VERSION = '1.3.0';

/** A sentence said around a value: `[before, after]`. */
export type Sentence = readonly [before: string, after: string];

/**
 * A kind of path parameter: a whole segment, named in a path template by the kind's name
 * (`{address}`, `{season}`). The generators of the CloudFront function and the Netlify rewrites
 * know each kind (tree/cdn-files.ts): a new kind is written there too.
 */
export interface ParameterKind {
  /** The segment is this prefix and the value (`s2` for season 2). */
  prefix: string;
  /** The value's type as the client takes it. */
  type: 'string' | 'number';
  /** What a segment must match. */
  pattern: RegExp;
  /** The segment as it names a file (an address in any letter case names the lower-case folder). */
  normal(segment: string): string;
  /** How the 404 sentence shows it. */
  shown: string;
  /** OpenAPI's description of the parameter. */
  description: string;
  /** The 400 for a segment that does not match (the segment cut to 60 characters). */
  invalid: Sentence;
  /** The 400 for a segment that names no file, and OpenAPI's description of a 400 of such a path; null: not a request error. */
  unknown: { sentence: Sentence; openApi: string } | null;
  /** When it ends the path and is left out, the 400 around an example path (with `example`); null: a 404. */
  missing: Sentence | null;
  example: string;
}

export const PARAMETERS = {
  address: {
    prefix: '',
    type: 'string',
    pattern: ADDRESS_PATTERN,
    normal: (segment) => segment.toLowerCase(),
    shown: '{address}',
    description: 'wallet address, any letter case',
    invalid: ['The address "', '" is not 0x followed by 40 hex digits.'],
    unknown: null,
    missing: null,
    example: `0x${'0'.repeat(40)}`,
  },
  season: {
    prefix: 's',
    type: 'number',
    pattern: SEASON_SEGMENT_PATTERN,
    normal: (segment) => segment,
    shown: 's{N}',
    description: 's followed by the season number',
    invalid: ['The season "', '" is not s followed by a season number, e.g. s1.'],
    unknown: { sentence: ['The season "', '" is not a known season.'], openApi: 'malformed or unknown season' },
    missing: ['The season segment is required, e.g. ', '.'],
    example: 's1',
  },
} as const satisfies Record<string, ParameterKind>;

export type ParameterName = keyof typeof PARAMETERS;

/** Cuts a document's day rows to the days from `from` to `to` (inclusive; null: unbounded), from its bytes. */
export type RangeFilter = (document: Uint8Array, from: string | null, to: string | null) => Uint8Array<ArrayBuffer>;

/** Which wallets have a file of an address endpoint: each group's files are all there or none (verify). */
export type WalletGroup = 'history' | 'participant';

export const WALLET_GROUPS: Record<WalletGroup, string> = {
  history: 'a wallet with balance history',
  participant: 'a participant of a season',
};

export interface Endpoint<Document = unknown> {
  /**
   * `/v1/...`, each parameter a whole segment named by its kind (PARAMETERS). Its file is the
   * path plus `.json`, or the path itself when it ends in `.json` (fileTemplate).
   */
  path: string;
  /** The document's schema: the build checks what it writes, verify what it reads, and its id names its OpenAPI component. */
  schema: z.ZodType<Document>;
  /**
   * The answer for an address without a file of its own (`_snapshot/no-history/<name>.json`,
   * noHistoryFile), written by every shard; null: none (a missing file is the parameter's 400,
   * or a 404).
   */
  noHistory: ((meta: SnapshotMeta) => NoInfer<Document>) | null;
  /** Takes `from`/`to`: how its day rows are cut, and OpenAPI's description of each bound; null: it takes none. */
  range: { filter: RangeFilter; from: string; to: string } | null;
  /** An address endpoint: the wallets that have its file. */
  wallets?: WalletGroup;
  /** The client function's sentence, after `GET <path>: ` (the function's name is the table's key). */
  client: string;
  openApi: { operationId: string; summary: string; answer: string };
}

const endpoint = <Document>(declared: Endpoint<Document>): Endpoint<Document> => declared;

/** from/to over a document's days (`where`: which days, when not the document's own list). */
const days = (filter: RangeFilter, where?: string): Endpoint['range'] => ({
  filter,
  from: `first day to include (inclusive)${where ? `, ${where}` : ''}`,
  to: 'last day to include (inclusive); from must not be later than to',
});

/** Every endpoint, in the order of the OpenAPI paths and of the client's functions. */
export const ENDPOINTS = {
  portfolio: endpoint({
    path: '/v1/address/{address}/portfolio',
    schema: PortfolioHistorySchema,
    noHistory: () => ({}),
    range: null,
    wallets: 'history',
    client: 'balance snapshots per chain and token.',
    openApi: {
      operationId: 'getPortfolioHistory',
      summary: 'Balance snapshots per chain and token (venue-B sub-accounts attributed to the wallet)',
      answer: 'the history; {} for a wallet without history',
    },
  }),
  daily: endpoint({
    path: '/v1/address/{address}/portfolio/daily',
    schema: DailyPortfolioSchema,
    noHistory: (meta) => ({ asOf: meta.dailyAsOf, days: [] }),
    range: days(filterDaily),
    wallets: 'history',
    client: 'end-of-day balances and values, within the range if given.',
    openApi: {
      operationId: 'getDailyPortfolio',
      summary: 'End-of-day balances and dollar values for every closed New York day',
      answer: 'the days in range; asOf is unchanged by from/to',
    },
  }),
  leaderboard: endpoint({
    path: '/v1/leaderboard/{season}',
    schema: LeaderboardSchema,
    noHistory: null,
    range: null,
    client: "a season's top 100 and its multipliers.",
    openApi: {
      operationId: 'getLeaderboard',
      summary: 'Top 100 wallets of a season by points, with its multiplier schedule',
      answer: 'the leaderboard',
    },
  }),
  points: endpoint({
    path: '/v1/address/{address}/points',
    schema: PointsStandingSchema,
    noHistory: () => ({ seasons: [] }),
    range: null,
    wallets: 'participant',
    client: "the wallet's standing in every season.",
    openApi: {
      operationId: 'getPointsStanding',
      summary: "The wallet's rank, points and daily rate in every season it takes part in (added in 1.2.0)",
      answer: 'one row per season with points, by season; {"seasons": []} for a wallet without points',
    },
  }),
  pointsHistory: endpoint({
    path: '/v1/address/{address}/points/history',
    schema: PointsHistorySchema,
    noHistory: () => ({ seasons: [] }),
    range: days(filterPointsHistory, 'in every season'),
    wallets: 'participant',
    client: "per season, the wallet's points, total and rank of each day in the range.",
    openApi: {
      operationId: 'getPointsHistory',
      summary: "The wallet's points, running total and rank on every day of every season it takes part in (added in 1.3.0)",
      answer:
        'one entry per season with points, by season, its days in range (a season keeps its entry with days [] when none is); {"seasons": []} for a wallet without points',
    },
  }),
  seasons: endpoint({
    path: '/v1/seasons',
    schema: SeasonsIndexSchema,
    noHistory: null,
    range: null,
    client: 'every known season.',
    openApi: {
      operationId: 'getSeasons',
      summary: 'Every known season with its asOf, whether it is frozen, and its participants (added in 1.2.0)',
      answer: 'every known season, by season',
    },
  }),
};

/** A table of endpoints: the product's is ENDPOINTS; a test passes a copy with one more. */
export type EndpointTable = Record<string, Endpoint>;
export type EndpointName = keyof typeof ENDPOINTS;
/** The document of an endpoint of the product's table. */
export type DocumentOf<Name extends EndpointName> = (typeof ENDPOINTS)[Name] extends Endpoint<infer Document> ? Document : never;

/** The parameters of a path, in order. */
export function parametersOf(path: string): ParameterName[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => {
    if (!(name! in PARAMETERS)) throw new Error(`${path}: {${name}} is no kind of parameter (${Object.keys(PARAMETERS).join(', ')})`);
    return name as ParameterName;
  });
}

/** Where the endpoint's file lives: the path without its leading slash, plus `.json` unless it ends so. */
export function fileTemplate(endpoint: Pick<Endpoint, 'path'>): string {
  const path = endpoint.path.slice(1);
  return path.endsWith('.json') ? path : `${path}.json`;
}

/** A template (a path or a file) with each parameter's normal segment in place. */
export function filled(template: string, segments: Partial<Record<ParameterName, string>>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: ParameterName) => {
    const segment = segments[name];
    if (segment === undefined) throw new Error(`${template}: no value for {${name}}`);
    return segment;
  });
}

/** The no-history answer's file of the endpoint `name`: `_snapshot/no-history/<name in kebab case>.json`. */
export function noHistoryFile(name: string): string {
  return `_snapshot/no-history/${name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}.json`;
}

/** The path as the 404 sentence and the docs show it: `/v1/leaderboard/s{N}`. */
export function shownPath(endpoint: Pick<Endpoint, 'path'>): string {
  return endpoint.path.replace(/\{(\w+)\}/g, (_, name: ParameterName) => PARAMETERS[name].shown);
}

/**
 * The 404's sentence of every host (the handler's, the CloudFront function's): the paths by what
 * they are asked about, a wallet's documents first, then a season's, then the rest, each group
 * in the table's order.
 */
export function noSuchEndpointMessage(endpoints: EndpointTable): string {
  const group = (endpoint: Endpoint) => {
    const parameters = parametersOf(endpoint.path);
    return parameters.includes('address') ? 0 : parameters.includes('season') ? 1 : 2;
  };
  const shown = Object.values(endpoints)
    .map((endpoint, order) => ({ endpoint, order }))
    .sort((a, b) => group(a.endpoint) - group(b.endpoint) || a.order - b.order)
    .map(({ endpoint }) => shownPath(endpoint));
  const list = shown.length > 1 ? `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}` : (shown[0] ?? 'none');
  return `No such endpoint; the endpoints are ${list}.`;
}

/** What the client needs of an endpoint at run time (client/endpoints.ts holds the product's). */
export interface ClientRoute {
  /** The path without its leading slash, each parameter `{name}` after its prefix: `v1/leaderboard/s{season}`. */
  path: string;
  range: boolean;
}

/** The client's routes of a table: what client/endpoints.ts declares for the product's, and what a test gives createClient. */
export function clientRoutes(endpoints: EndpointTable): Record<string, ClientRoute> {
  return Object.fromEntries(
    Object.entries(endpoints).map(([name, endpoint]) => [
      name,
      {
        path: endpoint.path.slice(1).replace(/\{(\w+)\}/g, (whole, kind: ParameterName) => `${PARAMETERS[kind].prefix}${whole}`),
        range: endpoint.range !== null,
      },
    ]),
  );
}

/** The sentence around a value. */
export function say(sentence: Sentence, value: string): string {
  return `${sentence[0]}${value}${sentence[1]}`;
}
