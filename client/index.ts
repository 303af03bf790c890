/**
 * `wallet-snapshot/client`: one typed function per `/v1` endpoint, for apps in browsers, Node 20+
 * and Workers (docs/api.md). It uses only web standards (`fetch`, `URL`) and imports nothing at
 * run time but its own modules: the functions are made from the endpoint table's client part
 * (endpoints.ts, written from schemas/endpoints.ts), the document types come from the schemas the
 * build writes with, imported as types only, and the schemas themselves are loaded on demand when
 * `validate` is on.
 */
import { type CallLimits, checkedTimeout } from './call-limits.ts';
import { type EndpointFunctions, ROUTES } from './endpoints.ts';
import { EtagMemory } from './etag-memory.ts';
import { defaultBackoff, getDocument, type DocumentKind, type DocumentValidator, type FetchInit, type Transport } from './request.ts';

export { ApiError, type ApiErrorKind } from './api-error.ts';
export type { DocumentKind, DocumentValidator, FetchInit } from './request.ts';
export type * from './endpoints.ts';
export type { BalanceSnapshot } from '../schemas/portfolio-history.ts';
export type { DayRow, Position } from '../schemas/daily-portfolio.ts';
export type { LeaderboardEntry, Multiplier } from '../schemas/leaderboard.ts';
export type { SeasonStanding } from '../schemas/points.ts';
export type { PointsHistoryDay, SeasonHistory } from '../schemas/points-history.ts';
export type { SeasonSummary } from '../schemas/seasons.ts';

/** A day: `YYYY-MM-DD` as given (the host judges it), or a `Date`, which stands for its UTC calendar day. */
export type Day = string | Date;

/** The days to keep (both bounds inclusive, either alone); omitted, the whole history. */
export interface DayRange {
  from?: Day;
  to?: Day;
}

/** What bounds a call; given to `createClient`, it bounds every call, and a call's own take precedence (its signal joins the client's). */
export interface CallOptions {
  /** Stops the call: it rejects at once with the signal's reason (the platform's `AbortError`) and is not retried. */
  signal?: AbortSignal;
  /**
   * Milliseconds for the whole call, every attempt and every wait between retries included
   * (default 30,000; `Infinity`: none). Past it, the request is abandoned and the call rejects
   * with an `ApiError` of kind `timeout`.
   */
  timeout?: number;
}

/** A range of days and what bounds the call. */
export interface RangeOptions extends DayRange, CallOptions {}

/** The timeout of a call when neither the client nor the call sets one. */
export const DEFAULT_TIMEOUT = 30_000;

export interface ClientOptions extends CallOptions {
  /** The origin (and path, if any) under which `/v1` lives: `https://api.example.com` or `https://example.com/snapshot/`. */
  baseUrl: string | URL;
  /** The `fetch` to use; by default the runtime's own. It is given the signal that closes the request on an abort or the timeout. */
  fetch?: (url: string, init: FetchInit) => Promise<Response>;
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
  /**
   * The functions to make, by name: each one's path under the base, its arguments as `{name}`
   * segments in order, and whether it takes a range of days. By default this version's endpoints
   * (`Client`); a host serving more passes its own (the endpoint table's `clientRoutes`).
   */
  endpoints?: Record<string, Route>;
}

/** What a function of the client asks for: its path under the base (`{name}` for each argument, in order), and whether it takes a range. */
export interface Route {
  path: string;
  range: boolean;
}

/** One function per endpoint of this version (endpoints.ts, from the endpoint table). */
export interface Client extends EndpointFunctions<CallOptions, RangeOptions> {}

/** The functions of a client made for other endpoints: each takes its arguments, then its options. */
export type RouteFunctions<Routes extends Record<string, Route>> = { [Name in keyof Routes]: (...args: unknown[]) => Promise<unknown> };

export function createClient(options: ClientOptions & { endpoints?: undefined }): Client;
export function createClient<Routes extends Record<string, Route>>(options: ClientOptions & { endpoints: Routes }): RouteFunctions<Routes>;
export function createClient(options: ClientOptions): Client | RouteFunctions<Record<string, Route>> {
  const base = baseOf(options.baseUrl);
  const retries = options.retries ?? 2;
  if (!Number.isInteger(retries) || retries < 0) {
    throw new TypeError(`retries is ${String(options.retries)}; expected a whole number, 0 or more`);
  }
  const timeout = options.timeout === undefined ? DEFAULT_TIMEOUT : checkedTimeout(options.timeout, 'timeout');
  const signal = checkedSignal(options.signal, 'signal');
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
  // Every call is async: an argument it judges wrong rejects its promise, before any request.
  const get = async (kind: DocumentKind, path: string, call: CallOptions | undefined, range?: DayRange): Promise<unknown> => {
    const query = rangeQuery(range);
    const limits: CallLimits = {
      timeout: call?.timeout === undefined ? timeout : checkedTimeout(call.timeout, "the call's timeout"),
      signals: [signal, checkedSignal(call?.signal, "the call's signal")].filter((each) => each !== undefined),
    };
    return getDocument(transport, new URL(path, base).href + query, kind, limits);
  };
  // Each function: its arguments put in its path, in order, then its options (and range).
  const functions: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
  for (const [kind, route] of Object.entries(options.endpoints ?? ROUTES)) {
    const segments = route.path.match(/\{\w+\}/g) ?? [];
    functions[kind] = async (...args) => {
      const call = args[segments.length] as RangeOptions | undefined;
      let path: string = route.path;
      segments.forEach((segment, i) => {
        path = path.replace(segment, encodeURIComponent(String(args[i])));
      });
      return get(kind as DocumentKind, path, call, route.range ? call : undefined);
    };
  }
  return functions as Client | RouteFunctions<Record<string, Route>>;
}

/** A signal as given, or undefined; anything else is refused (a call would otherwise never stop when asked). */
function checkedSignal(value: unknown, where: string): AbortSignal | undefined {
  if (value === undefined) return undefined;
  // By its shape, not instanceof: a signal of another realm (a frame, a test runner's) is one too.
  const signal = value as Partial<AbortSignal> | null;
  if (typeof signal?.aborted === 'boolean' && typeof signal.addEventListener === 'function') return value as AbortSignal;
  throw new TypeError(`${where} is not an AbortSignal; give AbortController's signal, or leave it out`);
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

const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * `?from=...&to=...` of the bounds given (none: the empty string). What the client can judge is
 * refused here, before any request: a bound neither a string nor a Date (a TypeError), an invalid
 * Date, and a `from` later than `to` (RangeErrors). A string is the host's to judge.
 */
function rangeQuery(range: DayRange | undefined): string {
  const from = range?.from === undefined ? undefined : dayText(range.from, 'from');
  const to = range?.to === undefined ? undefined : dayText(range.to, 'to');
  if (from !== undefined && to !== undefined && ISO_DAY.test(from) && ISO_DAY.test(to) && from > to) {
    throw new RangeError(`from (${from}) is later than to (${to}); give from on or before to`);
  }
  const query = new URLSearchParams();
  if (from !== undefined) query.set('from', from);
  if (to !== undefined) query.set('to', to);
  const text = query.toString();
  return text ? `?${text}` : '';
}

function dayText(day: Day, name: string): string {
  if (typeof day === 'string') return day;
  if (!(day instanceof Date)) throw new TypeError(`${name} is ${typeof day}; give a Date or a YYYY-MM-DD string`);
  if (Number.isNaN(day.getTime())) throw new RangeError(`${name} is an invalid Date; give a Date or a YYYY-MM-DD string`);
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
      if (beside === import.meta.url)
        throw new Error(`this module (${import.meta.url}) is not wallet-snapshot's client/index.js, beside which they are`);
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
          "In a bundled app, a Worker or wallet-snapshot-client, pass the validator itself: import { validateDocument } from 'wallet-snapshot/client/validation' " +
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
