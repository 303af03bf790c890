/**
 * Reads the /v1 documents through the package's own client (client/index.ts: retries,
 * revalidation, the host's error sentences) from the host that serves the page, with every number
 * kept as its exact text. The base is the page's folder, so the tree may sit under any prefix.
 *
 * Hosts differ (the preview server, the Worker, a CDN with rewrites, a bare static host), so:
 * - `from`/`to` are always sent and the days are also cut here: a static host ignores the query
 *   and answers the whole document, and the result is the same;
 * - an extensionless path that answers 404 is retried as the tree's `.json` file (a static host
 *   without rewrites), and an address document missing on both is that address's no-history
 *   answer.
 */
import { parse } from 'lossless-json';
import { ApiError, createClient } from '../client/index.ts';
import type {
  ExactDailyPortfolio,
  ExactLeaderboard,
  ExactPointsHistory,
  ExactPointsStanding,
  ExactPortfolioHistory,
  ExactSeasons,
} from './documents.ts';

export interface DayRange {
  from: string | null;
  to: string | null;
}

/** The host's answer, or, when it has no such path, the answer for the tree's file of it. */
async function fetchOrFile(url: string, init: { headers: Record<string, string> }): Promise<Response> {
  const response = await fetch(url, init);
  if (response.status !== 404) return response;
  const file = new URL(url);
  file.pathname += '.json';
  const fallback = await fetch(file, init);
  return fallback.status === 404 ? response : fallback;
}

// lossless-json's parse: the documents' numbers stay the exact text the JSON writes.
const client = createClient({ baseUrl: new URL('.', document.baseURI), fetch: fetchOrFile, parse });

/** The client's document typed as the page holds it (parse made every number a LosslessNumber). */
const exact = <Exact>(document: Promise<unknown>) => document as Promise<Exact>;

/** An address document the host does not have (a bare static host, a tree before v1.3): `empty`. */
async function orEmpty<T>(document: Promise<T>, empty: T): Promise<T> {
  try {
    return await document;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return empty;
    throw error;
  }
}

export function getSeasons(): Promise<ExactSeasons> {
  return exact(client.seasons());
}

export function getLeaderboard(season: string): Promise<ExactLeaderboard> {
  return exact(client.leaderboard(Number(season)));
}

export function getHistory(address: string): Promise<ExactPortfolioHistory> {
  return orEmpty(exact(client.portfolio(address)), {});
}

export async function getDaily(address: string, range: DayRange = { from: null, to: null }): Promise<ExactDailyPortfolio> {
  const bounds = { ...(range.from ? { from: range.from } : {}), ...(range.to ? { to: range.to } : {}) };
  const daily = await orEmpty(exact<ExactDailyPortfolio>(client.daily(address, bounds)), { asOf: null, days: [] });
  const inRange = (date: string) => (!range.from || date >= range.from) && (!range.to || date <= range.to);
  return { asOf: daily.asOf, days: daily.days.filter((day) => inRange(day.date)) };
}

export function getPoints(address: string): Promise<ExactPointsStanding> {
  return orEmpty(exact(client.points(address)), { seasons: [] });
}

/** The wallet's points day by day (v1.3); a host whose tree predates it answers 404, read as no history. */
export function getPointsHistory(address: string): Promise<ExactPointsHistory> {
  return orEmpty(exact(client.pointsHistory(address)), { seasons: [] });
}
