/**
 * Maps a request to what answers it (SPEC section 5): a file of the tree, the daily document
 * filtered by from/to, or an error. Only paths built here from validated segments ever reach the
 * filesystem, so no request path can read outside the tree.
 */
import { ADDRESS_PATTERN, isRealCalendarDate, SEASON_SEGMENT_PATTERN } from '../schemas/common.ts';
import { ADDRESS_DIR, dailyFile, leaderboardFile, NO_HISTORY_DAILY_FILE, NO_HISTORY_PORTFOLIO_FILE, OPENAPI_FILE, portfolioFile } from '../tree/layout.ts';

export type Route =
  | { kind: 'file'; file: string; fallback?: string; contentType?: string }
  | { kind: 'daily'; file: string; fallback: string; from: string | null; to: string | null }
  | { kind: 'season'; file: string; season: string }
  | { kind: 'error'; status: number; message: string };

const MAX_URL_LENGTH = 4096;

const error = (status: number, message: string): Route => ({ kind: 'error', status, message });

export function route(url: string): Route {
  if (url.length > MAX_URL_LENGTH) return error(414, `The request URL is longer than ${MAX_URL_LENGTH} characters.`);
  const queryStart = url.indexOf('?');
  const rawPath = queryStart === -1 ? url : url.slice(0, queryStart);
  const segments: string[] = [];
  for (const raw of rawPath.split('/').slice(1)) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return error(400, 'The request path has malformed percent-encoding.');
    }
    if (segment.includes('\0')) return error(400, 'The request path contains a NUL character.');
    segments.push(segment);
  }
  const [v1, resource, ...rest] = segments;
  // The explorer page and its assets, served from the tree with their own content types.
  if (rawPath === '/' || rawPath === '/index.html') return { kind: 'file', file: 'index.html', contentType: 'text/html; charset=utf-8' };
  if (v1 === 'explorer' && rest.length === 0 && /^[\w-]+\.(js|css)$/.test(resource ?? '')) {
    return { kind: 'file', file: `explorer/${resource}`, contentType: resource!.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8' };
  }
  if (v1 !== 'v1') return notFound();
  if (resource === 'seasons' && rest.length === 0) return { kind: 'file', file: 'v1/seasons.json' };
  if (resource === 'address' && rest.length === 2 && rest[1] === 'points') {
    if (!ADDRESS_PATTERN.test(rest[0]!)) return error(400, `The address "${truncate(rest[0]!)}" is not 0x followed by 40 hex digits.`);
    return { kind: 'file', file: `${ADDRESS_DIR}/${rest[0]!.toLowerCase()}/points.json`, fallback: '_snapshot/no-history/points.json' };
  }

  if (resource === 'address' && rest.length >= 2 && rest[1] === 'portfolio' && rest.length <= 3) {
    const [address, , daily] = rest;
    if (rest.length === 3 && daily !== 'daily') return notFound();
    if (!ADDRESS_PATTERN.test(address!)) return error(400, `The address "${truncate(address!)}" is not 0x followed by 40 hex digits.`);
    const wallet = address!.toLowerCase();
    if (rest.length === 2) return { kind: 'file', file: portfolioFile(wallet), fallback: NO_HISTORY_PORTFOLIO_FILE };
    const range = dateRange(queryStart === -1 ? '' : url.slice(queryStart + 1));
    if ('status' in range) return range;
    return { kind: 'daily', file: dailyFile(wallet), fallback: NO_HISTORY_DAILY_FILE, ...range };
  }
  if (resource === 'leaderboard' && rest.length <= 1) {
    const season = rest[0] ?? '';
    if (season === '') return error(400, 'The season segment is required, e.g. /v1/leaderboard/s1.');
    if (!SEASON_SEGMENT_PATTERN.test(season)) return error(400, `The season "${truncate(season)}" is not s followed by a season number, e.g. s1.`);
    return { kind: 'season', file: leaderboardFile(Number(season.slice(1))), season };
  }
  if (resource === 'openapi.json' && rest.length === 0) return { kind: 'file', file: OPENAPI_FILE };
  return notFound();
}

function notFound(): Route {
  return error(404, 'No such endpoint; the endpoints are /v1/address/{address}/portfolio, /v1/address/{address}/portfolio/daily and /v1/leaderboard/s{N}.');
}

/** `from` and `to`: each at most once, `YYYY-MM-DD`, a real date, and from <= to. */
function dateRange(query: string): { from: string | null; to: string | null } | Extract<Route, { kind: 'error' }> {
  let params: URLSearchParams;
  try {
    params = new URLSearchParams(query);
  } catch {
    return { kind: 'error', status: 400, message: 'The query string is malformed.' };
  }
  const bounds: Record<'from' | 'to', string | null> = { from: null, to: null };
  for (const name of ['from', 'to'] as const) {
    const values = params.getAll(name);
    if (values.length > 1) return { kind: 'error', status: 400, message: `The query parameter "${name}" is given more than once.` };
    const value = values[0];
    if (value === undefined) continue;
    if (!isRealCalendarDate(value)) {
      return { kind: 'error', status: 400, message: `The query parameter "${name}" must be a real date as YYYY-MM-DD, not "${truncate(value)}".` };
    }
    bounds[name] = value;
  }
  if (bounds.from !== null && bounds.to !== null && bounds.from > bounds.to) {
    return { kind: 'error', status: 400, message: `The range is empty: "from" (${bounds.from}) is later than "to" (${bounds.to}).` };
  }
  return bounds;
}

function truncate(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
