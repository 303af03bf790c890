/**
 * `wallet-snapshot verify`: every document of a tree against its zod schema, plus the invariants
 * that span files: one `asOf` in every daily document, lower-case address folders holding exactly
 * their two documents (and a participant's points file), each wallet's daily rows read off its
 * history (the daily portfolio's rule), one leaderboard per known season and no other, ordered
 * rows; the points files and the seasons index against the leaderboards (verify-points.ts).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import { DailyPortfolioSchema, type DailyPortfolio } from '../schemas/daily-portfolio.ts';
import { PortfolioHistorySchema, type PortfolioHistory } from '../schemas/portfolio-history.ts';
import { LEADERBOARD_SIZE, LeaderboardSchema, type Leaderboard } from '../schemas/leaderboard.ts';
import { PointsStandingSchema } from '../schemas/points.ts';
import type { Shard } from '../core/shard.ts';
import { PointsVerifier } from './verify-points.ts';
import { SnapshotMetaSchema, type SnapshotMeta } from '../schemas/meta.ts';
import { TOKEN_KEYS } from '../schemas/token-keys.ts';
import { ManifestCheck } from './verify-manifest.ts';
import { exactText, reportNumberTexts } from './verify-exact.ts';
import {
  ADDRESS_DIR,
  LEADERBOARD_DIR,
  META_FILE,
  NO_HISTORY_DAILY_FILE,
  NO_HISTORY_PORTFOLIO_FILE,
  POINTS_FILE_NAME,
  dailyFile,
  leaderboardFile,
  pointsFile,
  portfolioFile,
} from './layout.ts';

const MAX_FAILURES = 20;
const CONCURRENCY = 16;
const DAY_MS = 86_400_000;

export interface VerifyResult {
  files: number;
  failures: string[];
  truncated: boolean;
  /** What the build's records prove: "the whole tree", "all 4 shards", "shards 1, 3 of 4". */
  coverage: string;
}

/** `shard`: the tree is that one shard of a sharded build, not the whole tree. */
export async function verifyTree(dir: string, options: { shard?: Shard | null } = {}): Promise<VerifyResult> {
  const failures: string[] = [];
  let files = 0;
  let truncated = false;
  const fail = (message: string) => {
    if (failures.includes(message)) return;
    if (failures.length < MAX_FAILURES) failures.push(message);
    else truncated = true;
  };
  // Every file against the build's own record of what it wrote (hashes, nothing extra, nothing missing).
  const manifest = await ManifestCheck.load(dir, fail);
  const read = async <T>(file: string, schema: z.ZodType<T>): Promise<T | null> => {
    let text: string;
    try {
      const bytes = await fs.readFile(path.join(dir, file));
      manifest.saw(file, bytes);
      text = bytes.toString('utf8');
    } catch {
      fail(`${file}: missing`);
      return null;
    }
    files++;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      fail(`${file}: not JSON (${(error as Error).message})`);
      return null;
    }
    const result = schema.safeParse(parsed);
    if (!result.success) {
      const issue = result.error.issues[0]!;
      fail(`${file}: does not match its schema at ${issue.path.join('.') || '(root)'}: ${issue.message}`);
      return null;
    }
    // Numbers are compared as the text the file holds (verify-exact.ts): the parsed value is kept,
    // as that is what the texts are attached to (the schemas transform nothing).
    reportNumberTexts(file, text, parsed, fail);
    return parsed as T;
  };
  const finish = async () => ({ files, failures, truncated, coverage: (await manifest.finish()).coverage });

  const meta: SnapshotMeta | null = await read(META_FILE, SnapshotMetaSchema);
  if (!meta) return finish();

  const noHistory = await read(NO_HISTORY_PORTFOLIO_FILE, PortfolioHistorySchema);
  if (noHistory && Object.keys(noHistory).length > 0) fail(`${NO_HISTORY_PORTFOLIO_FILE}: must be {}`);
  const noDaily = await read(NO_HISTORY_DAILY_FILE, DailyPortfolioSchema);
  if (noDaily && (noDaily.asOf !== meta.dailyAsOf || noDaily.days.length > 0)) {
    fail(`${NO_HISTORY_DAILY_FILE}: must be {"asOf": ${JSON.stringify(meta.dailyAsOf)}, "days": []}`);
  }

  const boards: Leaderboard[] = [];
  for (const season of meta.seasons) {
    const board = await read(leaderboardFile(season), LeaderboardSchema);
    if (board) checkLeaderboard(leaderboardFile(season), board, season, fail);
    if (board?.season === season) boards.push(board);
  }
  // A tree of some shards is told apart by `--shard K/N` or by the build's records in it.
  const part = options.shard ? { count: options.shard.count, indexes: [options.shard.index] } : manifest.part;
  const points = new PointsVerifier(boards, part, fail);
  await points.checkSharedFiles(read, meta.seasons);
  for (const name of await listNames(path.join(dir, LEADERBOARD_DIR))) {
    const season = /^s([1-9][0-9]*)\.json$/.exec(name);
    if (!season || !meta.seasons.includes(Number(season[1]))) fail(`${LEADERBOARD_DIR}/${name}: not the file of a known season`);
  }

  const addresses = await fs.opendir(path.join(dir, ADDRESS_DIR)).catch(() => null);
  if (addresses) {
    const pending = new Set<Promise<void>>();
    for await (const entry of addresses) {
      if (truncated) break;
      const task = verifyWallet(entry.name, meta, read, fail, dir, points).finally(() => pending.delete(task));
      pending.add(task);
      if (pending.size >= CONCURRENCY) await Promise.race(pending);
    }
    await Promise.all(pending);
  }
  points.finish();
  return finish();
}

type Read = <T>(file: string, schema: z.ZodType<T>) => Promise<T | null>;
type Fail = (message: string) => void;

async function verifyWallet(address: string, meta: SnapshotMeta, read: Read, fail: Fail, dir: string, points: PointsVerifier): Promise<void> {
  const folder = `${ADDRESS_DIR}/${address}`;
  if (!/^0x[0-9a-f]{40}$/.test(address)) {
    fail(`${folder}: not a lower-case address folder`);
    return;
  }
  const allNames = await listNames(path.join(dir, folder));
  const names = allNames.filter((name) => name !== POINTS_FILE_NAME);
  if (names.length < allNames.length) {
    const standing = await read(pointsFile(address), PointsStandingSchema);
    if (standing) points.checkWallet(address, standing);
    // A participant without balance history: its folder holds its points file only.
    if (names.length === 0) return;
  }
  const portfolioNames = await listNames(path.join(dir, folder, 'portfolio'));
  if (names.join() !== 'portfolio,portfolio.json' || portfolioNames.join() !== 'daily.json') {
    fail(`${folder}: must hold exactly portfolio.json and portfolio/daily.json (and points.json for a participant of a season)`);
  }
  const history = await read(portfolioFile(address), PortfolioHistorySchema);
  const daily = await read(dailyFile(address), DailyPortfolioSchema);
  if (history) checkHistory(portfolioFile(address), history, fail);
  if (daily) checkDaily(dailyFile(address), daily, meta, fail);
  if (history && Object.keys(history).length === 0) fail(`${portfolioFile(address)}: a wallet without history has no files`);
  if (history && daily) checkDailyAgainstHistory(dailyFile(address), history, daily, fail);
}

/**
 * The daily portfolio's rows read off the wallet's own history: the rows run from the date of its
 * earliest snapshot to `asOf`, and each day holds exactly the (chain, token) whose last snapshot
 * (in transaction order, the history's order) dated on or before it is not zero, with that balance,
 * in the history's own order (chains ascending, then tokens). Dates need not grow with the
 * transaction order (a later block may carry an earlier timestamp), so each series is swept in date
 * order.
 */
function checkDailyAgainstHistory(file: string, history: PortfolioHistory, daily: DailyPortfolio, fail: Fail): void {
  const series = Object.entries(history).flatMap(([chain, tokens]) =>
    TOKEN_KEYS.filter((token) => tokens[token].length > 0).map((token) => {
      const snapshots = tokens[token];
      const byDate = snapshots.map((_, i) => i).sort((a, b) => (snapshots[a]!.date < snapshots[b]!.date ? -1 : snapshots[a]!.date > snapshots[b]!.date ? 1 : a - b));
      return { chainId: Number(chain), token, snapshots, byDate, swept: 0, last: -1 };
    }));
  if (series.length === 0) return;
  const firstDate = series.map((one) => one.snapshots[one.byDate[0]!]!.date).reduce((first, date) => (date < first ? date : first));
  const days = daily.days;
  if (daily.asOf !== null && firstDate <= daily.asOf ? days[0]?.date !== firstDate : days.length > 0) {
    fail(`${file}: the rows must start on ${firstDate}, the date of the earliest snapshot in portfolio.json (or be empty after asOf)`);
    return;
  }
  for (const day of days) {
    const expected: string[] = [];
    for (const one of series) {
      for (; one.swept < one.byDate.length && one.snapshots[one.byDate[one.swept]!]!.date <= day.date; one.swept++) {
        one.last = Math.max(one.last, one.byDate[one.swept]!);
      }
      // Exact texts: two balances that one double cannot tell apart still differ.
      const balance = one.last < 0 ? '0' : exactText(one.snapshots[one.last]!, 'balance');
      if (balance !== '0') expected.push(`${one.chainId} ${one.token} ${balance}`);
    }
    const found = day.positions.map((position) => `${position.chainId} ${position.token} ${exactText(position, 'balance')}`);
    if (found.join() !== expected.join()) {
      fail(`${file}: the positions of ${day.date} are not the end-of-day balances of portfolio.json (expected ${expected.join(', ') || 'none'}; found ${found.join(', ') || 'none'})`);
      return;
    }
  }
}

function checkHistory(file: string, history: PortfolioHistory, fail: Fail): void {
  const chains = Object.keys(history).map(Number);
  if (chains.some((chain, i) => i > 0 && chain <= chains[i - 1]!)) fail(`${file}: chain keys are not in ascending order`);
  for (const [chain, tokens] of Object.entries(history)) {
    if (Object.keys(tokens).join() !== TOKEN_KEYS.join()) fail(`${file}: chain ${chain} does not list the seven token keys in order`);
    if (Object.values(tokens).every((snapshots) => snapshots.length === 0)) fail(`${file}: chain ${chain} has no snapshot`);
  }
}

function checkDaily(file: string, daily: DailyPortfolio, meta: SnapshotMeta, fail: Fail): void {
  if (daily.asOf !== meta.dailyAsOf) fail(`${file}: asOf ${daily.asOf} differs from the tree's ${meta.dailyAsOf}`);
  const days = daily.days;
  if (days.length > 0 && days[days.length - 1]!.date !== meta.dailyAsOf) fail(`${file}: the last day is not asOf`);
  for (let i = 0; i < days.length; i++) {
    const day = days[i]!;
    if (i > 0 && Date.parse(day.date) - Date.parse(days[i - 1]!.date) !== DAY_MS) {
      fail(`${file}: ${day.date} does not follow ${days[i - 1]!.date} by one day`);
      return;
    }
    let total = 0;
    for (let k = 0; k < day.positions.length; k++) {
      const position = day.positions[k]!;
      const previous = day.positions[k - 1];
      if (previous && (previous.chainId > position.chainId ||
          (previous.chainId === position.chainId && TOKEN_KEYS.indexOf(previous.token) >= TOKEN_KEYS.indexOf(position.token)))) {
        fail(`${file}: positions of ${day.date} are not ordered by chainId then token`);
        return;
      }
      if (position.valueUsd !== position.balance * position.usdPerToken) {
        fail(`${file}: valueUsd of ${position.token} on chain ${position.chainId} on ${day.date} is not balance * usdPerToken`);
        return;
      }
      total += position.valueUsd;
    }
    if (total !== day.totalValueUsd) {
      fail(`${file}: totalValueUsd of ${day.date} is not the sum of its positions`);
      return;
    }
  }
}

function checkLeaderboard(file: string, board: z.infer<typeof LeaderboardSchema>, season: number, fail: Fail): void {
  if (board.season !== season) fail(`${file}: season is ${board.season}`);
  const listed = Math.min(LEADERBOARD_SIZE, board.totalParticipants);
  if (board.entries.length !== listed) fail(`${file}: ${board.entries.length} entries for ${board.totalParticipants} participants (the first ${listed} are listed)`);
  board.multipliers.forEach((row, i) => {
    const previous = board.multipliers[i - 1];
    if (previous && (previous.position > row.position || (previous.position === row.position && previous.firstDay > row.firstDay))) {
      fail(`${file}: multipliers are not ordered by position then firstDay`);
    }
  });
  board.entries.forEach((entry, i) => {
    const previous = board.entries[i - 1];
    const expectedRank = previous && previous.totalPoints === entry.totalPoints ? previous.rank : i + 1;
    if (entry.rank !== expectedRank) fail(`${file}: entry ${i + 1} has rank ${entry.rank}, expected ${expectedRank}`);
    if (previous && (previous.totalPoints < entry.totalPoints || (previous.totalPoints === entry.totalPoints && previous.user >= entry.user))) {
      fail(`${file}: entries are not ordered by totalPoints then user`);
    }
  });
  if (board.asOf === null && board.entries.length > 0) fail(`${file}: entries without an asOf`);
}

async function listNames(folder: string): Promise<string[]> {
  try {
    return (await fs.readdir(folder)).sort();
  } catch {
    return [];
  }
}
