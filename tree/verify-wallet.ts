/**
 * `verify` for the wallet folders, a batch at a time, in a verify thread (verify-thread.ts) or in
 * the main thread for a small tree: each folder against its lines of the build's record (every
 * byte as written, nothing extra, nothing missing), each document against its schema and its exact
 * number texts, and the rules within a wallet: lower-case address folders holding exactly the
 * files of a wallet with balance history, of a participant of a season, or of both (the endpoint
 * table's address endpoints, tree/layout.ts), the daily document's days and values, and its
 * rows read off the wallet's own history. The points files are checked against the leaderboards
 * here; what the rules across all wallets need goes back to the main thread (verify-points.ts).
 */
import type { z } from 'zod';
import type { DailyPortfolio } from '../schemas/daily-portfolio.ts';
import type { PortfolioHistory } from '../schemas/portfolio-history.ts';
import type { Leaderboard } from '../schemas/leaderboard.ts';
import { TOKEN_KEYS, type TokenKey } from '../schemas/token-keys.ts';
import { ENDPOINTS, type EndpointName, WALLET_GROUPS, type WalletGroup } from '../schemas/endpoints.ts';
import { ADDRESS_DIR, WALLET_FILES, dailyFile, pointsFile, pointsHistoryFile, portfolioFile, walletFile } from './layout.ts';
import { verifyPointsHistory } from './verify-points-history.ts';
import { RecordedFolder } from './verify-manifest.ts';
import { folderFiles, PathListing, type TreeEntry, type TreeFiles } from './tree-files.ts';
import { PackedFiles } from './packed-files.ts';
import { PointsVerifier, type SeasonTallyPart, type TreePart } from './verify-points.ts';
import { readDocument, type Fail, type ReadDocument } from './verify-document.ts';
import { totalValueUsd, valueUsd } from '../core/position-value.ts';

const DAY_MS = 86_400_000;

/** Where the wallets' files are: a folder of files, or a packed folder's members (tree/packed-files.ts). */
export type TreeSource = { kind: 'folder'; root: string } | { kind: 'packed'; dir: string };

/** What every batch of wallets is checked against: the same in every thread. */
export interface WalletContext {
  source: TreeSource;
  dailyAsOf: string | null;
  /** The known seasons' leaderboards that were read and match their schema. */
  boards: Leaderboard[];
  /** The shards the tree holds when it is not the whole tree. */
  part: TreePart | null;
}

export interface WalletBatch {
  id: number;
  /** The names in v1/address/, each with its wallet's lines of the record (null: none to check against). */
  names: string[];
  lines: (string[] | null)[];
  /** A packed folder's: the members under each wallet's folder (its listing); null for a folder of files. */
  members: string[][] | null;
}

export interface WalletBatchResult {
  id: number;
  wallets: number;
  /** Documents read that conform to their schemas. */
  files: number;
  /** The first failures, at most `limit` + 1 (one more says there were more). */
  failures: string[];
  tallies: SeasonTallyPart[];
}

/** Checks batches of wallet folders, keeping what the rules across wallets need between them. */
export class WalletChecker {
  private readonly points: PointsVerifier;
  private failures: string[] = [];
  private files = 0;
  /** The tree's files as this batch sees them (a packed folder's listing is the batch's wallets' members). */
  private tree: TreeFiles;
  private packed: PackedFiles | null = null;

  constructor(
    private readonly context: WalletContext,
    private readonly limit: number,
  ) {
    this.points = new PointsVerifier(context.boards, context.part, (message) => this.fail(message));
    this.tree = context.source.kind === 'folder' ? folderFiles(context.source.root) : this.packedFiles(new PathListing([]));
  }

  check(batch: WalletBatch): WalletBatchResult {
    this.failures = [];
    this.files = 0;
    if (batch.members) this.tree = this.packedFiles(new PathListing(batch.members.flat()));
    for (let i = 0; i < batch.names.length && this.failures.length <= this.limit; i++) {
      this.checkWallet(batch.names[i]!, batch.lines[i]!);
    }
    return { id: batch.id, wallets: batch.names.length, files: this.files, failures: this.failures, tallies: this.points.takeTallies() };
  }

  /** The packed folder opened once per checker (its index read once), seen through `listing`. */
  private packedFiles(listing: PathListing): PackedFiles {
    if (this.context.source.kind !== 'packed') throw new Error('a folder of files has no members');
    this.packed = this.packed ? this.packed.withListing(listing) : PackedFiles.reopen(this.context.source.dir, listing);
    return this.packed;
  }

  private fail(message: string): void {
    if (this.failures.length <= this.limit && !this.failures.includes(message)) this.failures.push(message);
  }

  private checkWallet(address: string, lines: string[] | null): void {
    const tree = this.tree;
    const fail = (message: string) => this.fail(message);
    const folder = `${ADDRESS_DIR}/${address}`;
    const record = lines === null ? null : new RecordedFolder(folder, lines, fail);
    // Each folder is listed once, for the rules below and for the record.
    const listings = new Map<string, TreeEntry[] | null>();
    const list = (name: string): TreeEntry[] | null => {
      if (!listings.has(name)) listings.set(name, tree.list(name));
      return listings.get(name)!;
    };
    const read = <T>(file: string, schema: z.ZodType<T>): ReadDocument<T> | null => {
      const document = readDocument(tree, file, schema, fail, (name, bytes) => record?.saw(name, bytes));
      if (document) this.files++;
      return document;
    };
    this.checkDocuments(address, folder, list, read, fail);
    record?.finish(tree, list);
  }

  private checkDocuments(
    address: string,
    folder: string,
    list: (folder: string) => TreeEntry[] | null,
    read: <T>(file: string, schema: z.ZodType<T>) => ReadDocument<T> | null,
    fail: Fail,
  ): void {
    if (!/^0x[0-9a-f]{40}$/.test(address)) {
      fail(`${folder}: not a lower-case address folder`);
      return;
    }
    const { held, present } = heldFiles(folder, list, fail);
    // Each document the folder holds is read, once the folder's rule is checked (a missing one broke it).
    const holds = (name: EndpointName) => present.has(walletFile(name).file);
    if (held.has('participant')) {
      const standing = holds('points') ? read(pointsFile(address), ENDPOINTS.points.schema) : null;
      if (standing) this.points.checkWallet(address, standing.value);
      const pointsHistory = holds('pointsHistory') ? read(pointsHistoryFile(address), ENDPOINTS.pointsHistory.schema) : null;
      if (standing && pointsHistory) verifyPointsHistory(pointsHistoryFile(address), pointsHistory.value, standing.value, fail);
    }
    if (held.has('history')) {
      const history = holds('portfolio') ? read(portfolioFile(address), ENDPOINTS.portfolio.schema) : null;
      const daily = holds('daily') ? read(dailyFile(address), ENDPOINTS.daily.schema) : null;
      if (history) checkHistory(portfolioFile(address), history.value, fail);
      if (daily) checkDaily(dailyFile(address), daily.value, this.context.dailyAsOf, fail);
      if (history && Object.keys(history.value).length === 0) fail(`${portfolioFile(address)}: a wallet without history has no files`);
      if (history && daily) checkDailyAgainstHistory(dailyFile(address), history, daily, fail);
    }
  }
}

/** The files of each group of wallets in a wallet's folder (tree/layout.ts, from the endpoint table). */
const GROUP_FILES = new Map<WalletGroup, string[]>();
for (const { file, wallets } of WALLET_FILES) GROUP_FILES.set(wallets, [...(GROUP_FILES.get(wallets) ?? []), file]);
const FILE_FOLDERS = new Set(WALLET_FILES.map((one) => one.folder).filter((folder) => folder !== ''));
const FOLDER_RULE = `must hold exactly the files of ${[...GROUP_FILES]
  .map(([group, files]) => `${WALLET_GROUPS[group]} (${files.join(', ')})`)
  .join(', of ')}, or of both`;

/**
 * The files in a wallet's folder (paths inside it), and the groups of wallets whose files they
 * are: a folder holds every file of one group or more (a wallet with balance history, a
 * participant of a season), and nothing else. A folder that breaks the rule fails once.
 */
function heldFiles(
  folder: string,
  list: (folder: string) => TreeEntry[] | null,
  fail: Fail,
): { held: Set<WalletGroup>; present: Set<string> } {
  const present = new Set<string>();
  for (const entry of list(folder) ?? []) {
    // By name: an entry where a file should be is read as one (and is unreadable if it is a folder).
    if (entry.isDirectory() && FILE_FOLDERS.has(entry.name)) {
      for (const inner of list(`${folder}/${entry.name}`) ?? []) present.add(`${entry.name}/${inner.name}`);
    } else present.add(entry.name);
  }
  const held = new Set([...GROUP_FILES].filter(([, files]) => files.some((file) => present.has(file))).map(([group]) => group));
  const expected = [...held].flatMap((group) => GROUP_FILES.get(group)!);
  if (held.size === 0 || expected.length !== present.size || expected.some((file) => !present.has(file))) fail(`${folder}: ${FOLDER_RULE}`);
  return { held, present };
}

/** The text of the balance of `holder`, the `index`-th balance of its document. */
function balanceText(document: ReadDocument<unknown>, index: number, holder: { balance: number }): string {
  return document.balances?.[index] ?? String(holder.balance);
}

/**
 * The daily portfolio's rows read off the wallet's own history: the rows run from the date of its
 * earliest snapshot to `asOf`, and each day holds exactly the (chain, token) whose last snapshot
 * (in transaction order, the history's order) dated on or before it is not zero, with that balance,
 * in the history's own order (chains ascending, then tokens). Dates need not grow with the
 * transaction order (a later block may carry an earlier timestamp), so each series is swept in date
 * order. Balances are compared as their texts: two that one double cannot tell apart still differ.
 */
function checkDailyAgainstHistory(
  file: string,
  historyDocument: ReadDocument<PortfolioHistory>,
  dailyDocument: ReadDocument<DailyPortfolio>,
  fail: Fail,
): void {
  const history = historyDocument.value;
  // Where each series' balances start among the document's, in its own (the text's) order.
  const firstBalance = new Map<string, number>();
  let counted = 0;
  for (const [chain, tokens] of Object.entries(history)) {
    for (const [token, snapshots] of Object.entries(tokens)) {
      firstBalance.set(`${chain} ${token}`, counted);
      counted += snapshots.length;
    }
  }
  const series = Object.entries(history).flatMap(([chain, tokens]) =>
    TOKEN_KEYS.filter((token) => tokens[token].length > 0).map((token) => {
      const snapshots = tokens[token];
      const byDate = snapshots
        .map((_, i) => i)
        .sort((a, b) => (snapshots[a]!.date < snapshots[b]!.date ? -1 : snapshots[a]!.date > snapshots[b]!.date ? 1 : a - b));
      return {
        chainId: Number(chain),
        token: token as TokenKey,
        snapshots,
        byDate,
        first: firstBalance.get(`${chain} ${token}`)!,
        swept: 0,
        last: -1,
      };
    }),
  );
  if (series.length === 0) return;
  // biome-ignore lint/complexity/useMathMinMax: the dates are YYYY-MM-DD strings, compared as text.
  const firstDate = series.map((one) => one.snapshots[one.byDate[0]!]!.date).reduce((first, date) => (date < first ? date : first));
  const daily = dailyDocument.value;
  const days = daily.days;
  if (daily.asOf !== null && firstDate <= daily.asOf ? days[0]?.date !== firstDate : days.length > 0) {
    fail(`${file}: the rows must start on ${firstDate}, the date of the earliest snapshot in portfolio.json (or be empty after asOf)`);
    return;
  }
  let position = 0;
  for (const day of days) {
    // Compared as they go; the texts are built only for the message.
    let matches = true;
    let k = 0;
    for (const one of series) {
      for (; one.swept < one.byDate.length && one.snapshots[one.byDate[one.swept]!]!.date <= day.date; one.swept++) {
        one.last = Math.max(one.last, one.byDate[one.swept]!);
      }
      const balance = one.last < 0 ? '0' : balanceText(historyDocument, one.first + one.last, one.snapshots[one.last]!);
      if (balance === '0') continue;
      const found = day.positions[k];
      if (
        !found ||
        found.chainId !== one.chainId ||
        found.token !== one.token ||
        balanceText(dailyDocument, position + k, found) !== balance
      )
        matches = false;
      k++;
    }
    if (!matches || k !== day.positions.length) {
      fail(
        `${file}: the positions of ${day.date} are not the end-of-day balances of portfolio.json (expected ${expectedPositions(historyDocument, series).join(', ') || 'none'}; found ${day.positions.map((one, i) => `${one.chainId} ${one.token} ${balanceText(dailyDocument, position + i, one)}`).join(', ') || 'none'})`,
      );
      return;
    }
    position += day.positions.length;
  }
}

/** For the message only: the positions the history gives the day the series were swept up to. */
function expectedPositions(
  historyDocument: ReadDocument<PortfolioHistory>,
  series: { chainId: number; token: string; snapshots: { balance: number }[]; first: number; last: number }[],
): string[] {
  return series.flatMap((one) => {
    const balance = one.last < 0 ? '0' : balanceText(historyDocument, one.first + one.last, one.snapshots[one.last]!);
    return balance === '0' ? [] : [`${one.chainId} ${one.token} ${balance}`];
  });
}

function checkHistory(file: string, history: PortfolioHistory, fail: Fail): void {
  const chains = Object.keys(history).map(Number);
  if (chains.some((chain, i) => i > 0 && chain <= chains[i - 1]!)) fail(`${file}: chain keys are not in ascending order`);
  for (const [chain, tokens] of Object.entries(history)) {
    if (Object.keys(tokens).join() !== TOKEN_KEYS.join()) fail(`${file}: chain ${chain} does not list every token key in order`);
    if (Object.values(tokens).every((snapshots) => snapshots.length === 0)) fail(`${file}: chain ${chain} has no snapshot`);
  }
}

const TOKEN_ORDER = new Map<string, number>(TOKEN_KEYS.map((token, i) => [token, i]));

function checkDaily(file: string, daily: DailyPortfolio, dailyAsOf: string | null, fail: Fail): void {
  if (daily.asOf !== dailyAsOf) fail(`${file}: asOf ${daily.asOf} differs from the tree's ${dailyAsOf}`);
  const days = daily.days;
  if (days.length > 0 && days[days.length - 1]!.date !== dailyAsOf) fail(`${file}: the last day is not asOf`);
  let previousTime = 0;
  for (let i = 0; i < days.length; i++) {
    const day = days[i]!;
    // Each date parsed once: a year of days is read in every daily document.
    const time = Date.parse(day.date);
    if (i > 0 && time - previousTime !== DAY_MS) {
      fail(`${file}: ${day.date} does not follow ${days[i - 1]!.date} by one day`);
      return;
    }
    previousTime = time;
    for (let k = 0; k < day.positions.length; k++) {
      const position = day.positions[k]!;
      const previous = day.positions[k - 1];
      if (
        previous &&
        (previous.chainId > position.chainId ||
          (previous.chainId === position.chainId && TOKEN_ORDER.get(previous.token)! >= TOKEN_ORDER.get(position.token)!))
      ) {
        fail(`${file}: positions of ${day.date} are not ordered by chainId then token`);
        return;
      }
      if (position.valueUsd !== valueUsd(position.balance, position.usdPerToken)) {
        fail(`${file}: valueUsd of ${position.token} on chain ${position.chainId} on ${day.date} is not balance * usdPerToken`);
        return;
      }
    }
    if (totalValueUsd(day.positions) !== day.totalValueUsd) {
      fail(`${file}: totalValueUsd of ${day.date} is not the sum of its positions`);
      return;
    }
  }
}
