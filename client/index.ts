/**
 * `wallet-snapshot/client`: one typed function per `/v1` endpoint, for apps in browsers, Node 20+
 * and Workers (docs/api.md). It uses only web standards (`fetch`, `URL`) and imports nothing at
 * run time but its own modules: the document types come from the schemas the build writes with,
 * imported as types only, and the schemas themselves are loaded on demand when `validate` is on.
 */
import type { DailyPortfolio } from '../schemas/daily-portfolio.ts';
import type { Leaderboard } from '../schemas/leaderboard.ts';
import type { PointsHistory } from '../schemas/points-history.ts';
import type { PointsStanding } from '../schemas/points.ts';
import type { PortfolioHistory } from '../schemas/portfolio-history.ts';
import type { SeasonsIndex } from '../schemas/seasons.ts';
import { EtagMemory } from './etag-memory.ts';
import { defaultBackoff, getDocument, type DocumentKind, type DocumentValidator, type Transport } from './request.ts';

export { ApiError } from './api-error.ts';
export type { DocumentKind, DocumentValidator } from './request.ts';
export type { BalanceSnapshot, PortfolioHistory } from '../schemas/portfolio-history.ts';
export type { DailyPortfolio, DayRow, Position } from '../schemas/daily-portfolio.ts';
export type { Leaderboard, LeaderboardEntry, Multiplier } from '../schemas/leaderboard.ts';
export type { PointsStanding, SeasonStanding } from '../schemas/points.ts';
export type { PointsHistory, PointsHistoryDay, SeasonHistory } from '../schemas/points-history.ts';
export type { SeasonsIndex, SeasonSummary } from '../schemas/seasons.ts';

/** A day: `YYYY-MM-DD` as given (the host judges it), or a `Date`, which stands for its UTC calendar day. */
export type Day = string | Date;

/** The days to keep (both bounds inclusive, either alone); omitted, the whole history. */
export interface DayRange {
  from?: Day;
  to?: Day;
}

export interface ClientOptions {
  /** The origin (and path, if any) under which `/v1` lives: `https://api.example.com` or `https://example.com/snapshot/`. */
  baseUrl: string | URL;
  /** The `fetch` to use; by default the runtime's own. */
  fetch?: (url: string, init: { headers: Record<string, string> }) => Promise<Response>;
  /** How many times a request that got a 5xx or no answer is tried again (default 2). */
  retries?: number;
  /** Milliseconds before retry `retry` (1, 2, ...); by default 50 to 100 ms, then doubling, jittered. */
  backoff?: (retry: number) => number;
  /**
   * Check each document against the schema the build writes it with: `true` loads zod and the
   * schemas the first time (in Node, or wherever the package's files are served as they are); a
   * bundled app passes `validateDocument` of `wallet-snapshot/client/validation` instead, and its
   * bundler decides where that code goes.
   */
  validate?: boolean | DocumentValidator;
  /**
   * How many documents' ETags (with their text) to remember for revalidation, least recently used
   * forgotten first (default 100; 0: none).
   */
  cacheSize?: number;
  /**
   * How to read a body (default `JSON.parse`): e.g. lossless-json's `parse`, to keep every
   * number's exact text. The results then hold what it makes, not the types' numbers, and
   * `validate` cannot check them.
   */
  parse?: (text: string) => unknown;
}

export interface Client {
  /** `GET /v1/address/{address}/portfolio`: balance snapshots per chain and token. */
  portfolio(address: string): Promise<PortfolioHistory>;
  /** `GET /v1/address/{address}/portfolio/daily`: end-of-day balances and values, within the range if given. */
  daily(address: string, range?: DayRange): Promise<DailyPortfolio>;
  /** `GET /v1/leaderboard/s{season}`: a season's top 100 and its multipliers. */
  leaderboard(season: number): Promise<Leaderboard>;
  /** `GET /v1/address/{address}/points`: the wallet's standing in every season. */
  points(address: string): Promise<PointsStanding>;
  /** `GET /v1/address/{address}/points/history`: per season, the wallet's points, total and rank of each day in the range. */
  pointsHistory(address: string, range?: DayRange): Promise<PointsHistory>;
  /** `GET /v1/seasons`: every known season. */
  seasons(): Promise<SeasonsIndex>;
}

export function createClient(options: ClientOptions): Client {
  const base = baseOf(options.baseUrl);
  const retries = options.retries ?? 2;
  if (!Number.isInteger(retries) || retries < 0) {
    throw new TypeError(`retries is ${String(options.retries)}; expected a whole number, 0 or more`);
  }
  if (options.validate && options.parse) {
    throw new TypeError('validate and parse cannot be combined: validation checks the numbers JSON.parse makes');
  }
  const transport: Transport = {
    // Looked up at each call, and called as a plain function: a fetch installed later is used, and
    // a browser's fetch is never called on another object (an "Illegal invocation").
    fetch: options.fetch ?? ((url, init) => globalThis.fetch(url, init)),
    retries,
    backoff: options.backoff ?? defaultBackoff,
    memory: new EtagMemory(options.cacheSize ?? 100),
    parse: options.parse ?? JSON.parse,
    validate: typeof options.validate === 'function' ? options.validate : options.validate ? validateOnDemand() : null,
  };
  const get = <T>(kind: DocumentKind, path: string, query = ''): Promise<T> =>
    getDocument(transport, new URL(path, base).href + query, kind) as Promise<T>;
  const address = (value: string) => `v1/address/${encodeURIComponent(value)}`;
  return {
    portfolio: (wallet) => get('portfolio', `${address(wallet)}/portfolio`),
    daily: async (wallet, range) => get('daily', `${address(wallet)}/portfolio/daily`, rangeQuery(range)),
    leaderboard: (season) => get('leaderboard', `v1/leaderboard/s${encodeURIComponent(String(season))}`),
    points: (wallet) => get('points', `${address(wallet)}/points`),
    pointsHistory: async (wallet, range) => get('pointsHistory', `${address(wallet)}/points/history`, rangeQuery(range)),
    seasons: () => get('seasons', 'v1/seasons'),
  };
}

/** The base as a URL ending in `/`, so that `v1/...` resolves under its path. */
function baseOf(baseUrl: string | URL): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(
      `baseUrl "${String(baseUrl)}" is not an absolute URL; give the origin the API is served from, e.g. https://api.example.com`,
    );
  }
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  url.search = '';
  url.hash = '';
  return url;
}

/** `?from=...&to=...` of the bounds given (none: the empty string). */
function rangeQuery(range: DayRange | undefined): string {
  const query = new URLSearchParams();
  if (range?.from !== undefined) query.set('from', dayText(range.from, 'from'));
  if (range?.to !== undefined) query.set('to', dayText(range.to, 'to'));
  const text = query.toString();
  return text ? `?${text}` : '';
}

function dayText(day: Day, name: string): string {
  if (!(day instanceof Date)) return String(day);
  if (Number.isNaN(day.getTime())) throw new TypeError(`${name} is an invalid Date; give a Date or a YYYY-MM-DD string`);
  return day.toISOString().slice(0, 10);
}

/**
 * The validator of this package, imported the first time a document is checked, from beside this
 * module. The import is made at run time from a specifier no tool reads: a bundler would otherwise
 * put zod and the schemas into every app's bundle (esbuild without code splitting inlines a
 * dynamic import: about 95 KB gzipped), and Miniflare refuses a Worker whose code holds an
 * `import()` of a computed specifier. This works wherever the package's files are there as they
 * are (Node, an unbundled page); a bundled app passes the validator itself, and the error says how.
 */
function validateOnDemand(): DocumentValidator {
  let loaded: Promise<DocumentValidator> | null = null;
  const load = async (): Promise<DocumentValidator> => {
    let specifier = '';
    try {
      // validation.ts beside index.ts in the sources (tsx), validation.js beside index.js in the package.
      const beside = import.meta.url.replace(/\/client\/index\.(ts|js)$/, '/client/validation.$1');
      if (beside === import.meta.url) throw new Error(`this module (${import.meta.url}) is not wallet-snapshot's client/index.js`);
      specifier = beside;
      type Imported = Promise<{ validateDocument?: unknown }>;
      const importAtRunTime = new Function('specifier', 'return import(specifier)') as (specifier: string) => Imported;
      const { validateDocument } = await importAtRunTime(specifier);
      if (typeof validateDocument !== 'function') throw new Error(`${specifier} exports no validateDocument`);
      return validateDocument as DocumentValidator;
    } catch (error) {
      loaded = null;
      throw new Error(
        `validate: true could not load the schemas beside the client${specifier ? ` (${specifier})` : ''}: ${(error as Error).message}. ` +
          "In a bundled app or a Worker, pass the validator itself: import { validateDocument } from 'wallet-snapshot/client/validation' " +
          'and createClient({ ..., validate: validateDocument }).',
        { cause: error },
      );
    }
  };
  return async (kind, document, url) => {
    loaded ??= load();
    await (await loaded)(kind, document, url);
  };
}
