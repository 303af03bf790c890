/**
 * Reads the /v1 documents from the host that serves the page, with every number kept as its
 * exact text. Paths are relative to the page, so the tree may sit under any prefix.
 *
 * Hosts differ (the preview server, the Worker, a CDN with rewrites, a bare static host), so:
 * - `from`/`to` are always sent and the days are also cut here: a static host ignores the query
 *   and answers the whole document, and the result is the same;
 * - an extensionless path that answers 404 is retried as the tree's `.json` file (a static host
 *   without rewrites), and an address document missing on both is that address's no-history
 *   answer.
 */
import { parse } from 'lossless-json';
import type { ExactDailyPortfolio, ExactLeaderboard, ExactPointsHistory, ExactPointsStanding, ExactPortfolioHistory, ExactSeasons } from './documents.ts';

export class ApiError extends Error {}

export interface DayRange {
  from: string | null;
  to: string | null;
}

async function getDocument<T>(path: string, query = ''): Promise<T | null> {
  for (const candidate of [path, `${path}.json`]) {
    const response = await fetch(new URL(candidate + query, document.baseURI), { headers: { Accept: 'application/json' } });
    if (response.status === 404) continue;
    const text = await response.text();
    if (!response.ok) throw new ApiError(`GET /${candidate}${query} answered ${response.status}: ${errorText(text)}`);
    try {
      return parse(text) as T;
    } catch (error) {
      throw new ApiError(`GET /${candidate}${query} did not answer JSON (${(error as Error).message})`);
    }
  }
  return null;
}

/** The sentence of an error body `{"error": "..."}`, or the start of whatever else came back. */
function errorText(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: unknown };
    if (typeof body.error === 'string') return body.error;
  } catch {
    // not JSON: a host's own error page
  }
  return text.slice(0, 200) || '(empty body)';
}

async function getRequired<T>(path: string): Promise<T> {
  const found = await getDocument<T>(path);
  if (found === null) throw new ApiError(`GET /${path} answered 404: this host does not serve it`);
  return found;
}

export function getSeasons(): Promise<ExactSeasons> {
  return getRequired('v1/seasons');
}

export function getLeaderboard(season: string): Promise<ExactLeaderboard> {
  return getRequired(`v1/leaderboard/s${season}`);
}

export async function getHistory(address: string): Promise<ExactPortfolioHistory> {
  return (await getDocument<ExactPortfolioHistory>(`v1/address/${address}/portfolio`)) ?? {};
}

export async function getDaily(address: string, range: DayRange = { from: null, to: null }): Promise<ExactDailyPortfolio> {
  const query = new URLSearchParams();
  if (range.from) query.set('from', range.from);
  if (range.to) query.set('to', range.to);
  const search = query.toString();
  const text = search ? `?${search}` : '';
  const daily = (await getDocument<ExactDailyPortfolio>(`v1/address/${address}/portfolio/daily`, text)) ?? { asOf: null, days: [] };
  return { asOf: daily.asOf, days: daily.days.filter((day) => (!range.from || day.date >= range.from) && (!range.to || day.date <= range.to)) };
}

export async function getPoints(address: string): Promise<ExactPointsStanding> {
  return (await getDocument<ExactPointsStanding>(`v1/address/${address}/points`)) ?? { seasons: [] };
}

/** The wallet's points day by day (v1.3); a host whose tree predates it answers 404, read as no history. */
export async function getPointsHistory(address: string): Promise<ExactPointsHistory> {
  return (await getDocument<ExactPointsHistory>(`v1/address/${address}/points/history`)) ?? { seasons: [] };
}
