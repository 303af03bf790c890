/**
 * Where each document lives in the snapshot tree, as the endpoint table (schemas/endpoints.ts)
 * says: the file of a `/v1` path is that path plus `.json` (a file and a folder cannot share a
 * name, and `/portfolio` is both a document and the parent of `/portfolio/daily`), and an
 * address endpoint's answer for an address without a file is `_snapshot/no-history/<name>.json`.
 * Besides the endpoints' files, the tree holds:
 *
 *   v1/openapi.json                        GET /v1/openapi.json
 *   index.html, explorer/*                 the explorer page and its assets
 *   _snapshot/meta.json                    asOf and the known seasons (for the server and verify)
 */
import {
  ENDPOINTS,
  type EndpointName,
  type Endpoint,
  fileTemplate,
  filled,
  noHistoryFile,
  PARAMETERS,
  parametersOf,
  type WalletGroup,
} from '../schemas/endpoints.ts';

export const OPENAPI_FILE = 'v1/openapi.json';
export const META_FILE = '_snapshot/meta.json';
export const EXPLORER_PAGE = 'index.html';
export const EXPLORER_DIR = 'explorer';

/** A function from one parameter's segment to the file, made once (the writers call it for every wallet). */
function fileOfOne(endpoint: Endpoint): (segment: string) => string {
  const [before, after] = fileTemplate(endpoint).split(`{${parametersOf(endpoint.path)[0]}}`) as [string, string];
  return (segment) => `${before}${segment}${after}`;
}

export const portfolioFile = fileOfOne(ENDPOINTS.portfolio);
export const dailyFile = fileOfOne(ENDPOINTS.daily);
export const pointsFile = fileOfOne(ENDPOINTS.points);
export const pointsHistoryFile = fileOfOne(ENDPOINTS.pointsHistory);
/** A season's document of an endpoint whose one parameter is `{season}` (the leaderboard, or any endpoint added per season). */
export function seasonFile(endpoint: Endpoint, season: number): string {
  return filled(fileTemplate(endpoint), { season: `${PARAMETERS.season.prefix}${season}` });
}
export const SEASONS_FILE = fileTemplate(ENDPOINTS.seasons);
/** The folder of the leaderboards (verify lists it). */
export const LEADERBOARD_DIR = seasonFile(ENDPOINTS.leaderboard, 1).replace(/\/[^/]*$/, '');

export const NO_HISTORY_PORTFOLIO_FILE = noHistoryFile('portfolio');
export const NO_HISTORY_DAILY_FILE = noHistoryFile('daily');
export const NO_HISTORY_POINTS_FILE = noHistoryFile('points');
export const NO_HISTORY_POINTS_HISTORY_FILE = noHistoryFile('pointsHistory');

/** A file of a wallet's folder: the endpoint, its path inside the folder, and the folder it is in there ('' for none). */
export interface WalletFile {
  name: EndpointName;
  file: string;
  folder: string;
  wallets: WalletGroup;
}

/**
 * The address endpoints' files, one folder per wallet: `v1/address/<address>/` (ADDRESS_DIR).
 * Every address endpoint lives under the same folder, which the writers, publish's shards and
 * verify rely on: a table that says otherwise is refused when this module loads.
 */
function walletLayout(): { dir: string; files: WalletFile[] } {
  let dir: string | null = null;
  const files: WalletFile[] = [];
  for (const [name, endpoint] of Object.entries(ENDPOINTS) as [EndpointName, Endpoint][]) {
    if (!parametersOf(endpoint.path).includes('address')) continue;
    const [before, after] = fileTemplate(endpoint).split('{address}') as [string, string];
    const here = before.slice(0, -1);
    if (!after.startsWith('/') || (dir !== null && here !== dir) || !endpoint.wallets) {
      throw new Error(
        `${endpoint.path}: an address endpoint's file is in the wallet's folder ${dir ?? here}/{address}/, and says its wallets`,
      );
    }
    dir = here;
    const file = after.slice(1);
    files.push({ name, file, folder: file.includes('/') ? file.slice(0, file.lastIndexOf('/')) : '', wallets: endpoint.wallets });
  }
  if (dir === null) throw new Error('the endpoint table has no address endpoint');
  return { dir, files };
}

const wallets = walletLayout();
/** The folder of the wallets' folders. */
export const ADDRESS_DIR = wallets.dir;
/** The files of a wallet's folder, in the table's order. */
export const WALLET_FILES: readonly WalletFile[] = wallets.files;

/** The file of endpoint `name` inside a wallet's folder (`portfolio/daily.json`). */
export function walletFile(name: EndpointName): WalletFile {
  const found = WALLET_FILES.find((one) => one.name === name);
  if (!found) throw new Error(`${name} is not an address endpoint`);
  return found;
}
