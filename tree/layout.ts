/**
 * Where each document lives in the snapshot tree. The rule is one for every host: the file of a
 * `/v1` path is that path plus `.json` (a file and a folder cannot share a name, and
 * `/portfolio` is both a document and the parent of `/portfolio/daily`).
 *
 *   v1/address/{a}/portfolio.json          GET /v1/address/{a}/portfolio
 *   v1/address/{a}/portfolio/daily.json    GET /v1/address/{a}/portfolio/daily
 *   v1/address/{a}/points.json             GET /v1/address/{a}/points (every participant of a season)
 *   v1/address/{a}/points/history.json     GET /v1/address/{a}/points/history (the same wallets)
 *   v1/leaderboard/s{N}.json               GET /v1/leaderboard/s{N}
 *   v1/seasons.json                        GET /v1/seasons
 *   v1/openapi.json                        GET /v1/openapi.json
 *   index.html, explorer/*                 the explorer page and its assets
 *   _snapshot/no-history/portfolio.json    answer for an address without history ({})
 *   _snapshot/no-history/daily.json        answer for an address without daily rows
 *   _snapshot/no-history/points.json       answer for an address without a points file ({"seasons":[]})
 *   _snapshot/no-history/points-history.json  answer for an address without a history file ({"seasons":[]})
 *   _snapshot/meta.json                    asOf and the known seasons (for the server and verify)
 */

export const ADDRESS_DIR = 'v1/address';
export const LEADERBOARD_DIR = 'v1/leaderboard';
export const OPENAPI_FILE = 'v1/openapi.json';
export const SEASONS_FILE = 'v1/seasons.json';
export const META_FILE = '_snapshot/meta.json';
export const NO_HISTORY_PORTFOLIO_FILE = '_snapshot/no-history/portfolio.json';
export const NO_HISTORY_DAILY_FILE = '_snapshot/no-history/daily.json';
export const NO_HISTORY_POINTS_FILE = '_snapshot/no-history/points.json';
export const NO_HISTORY_POINTS_HISTORY_FILE = '_snapshot/no-history/points-history.json';
export const EXPLORER_PAGE = 'index.html';
export const EXPLORER_DIR = 'explorer';
/** The points file's name inside a wallet's folder (a folder that may hold only this file). */
export const POINTS_FILE_NAME = 'points.json';
/** The folder beside it holding the points history (`/points` is a document and a parent, like `/portfolio`). */
export const POINTS_HISTORY_DIR_NAME = 'points';
export const POINTS_HISTORY_FILE_NAME = 'history.json';

export function portfolioFile(address: string): string {
  return `${ADDRESS_DIR}/${address}/portfolio.json`;
}

export function dailyFile(address: string): string {
  return `${ADDRESS_DIR}/${address}/portfolio/daily.json`;
}

export function pointsFile(address: string): string {
  return `${ADDRESS_DIR}/${address}/${POINTS_FILE_NAME}`;
}

export function pointsHistoryFile(address: string): string {
  return `${ADDRESS_DIR}/${address}/${POINTS_HISTORY_DIR_NAME}/${POINTS_HISTORY_FILE_NAME}`;
}

export function leaderboardFile(season: number): string {
  return `${LEADERBOARD_DIR}/s${season}.json`;
}
