/**
 * `verify` of the night's summaries (`_snapshot/night/K-of-N.json`, docs/reliability.md#the-nights-summary): their bytes are
 * proven by the manifest like every file; here each is read against its schema and against the
 * files it summarises, so that a summary that says something else than the tree is caught: the
 * dates of `meta.json`, each season's participants, `asOf` and leaderboard digest.
 */
import crypto from 'node:crypto';
import type { z } from 'zod';
import { NightSummarySchema, type NightSummary } from '../schemas/night-summary.ts';
import type { Leaderboard } from '../schemas/leaderboard.ts';
import type { SnapshotMeta } from '../schemas/meta.ts';
import { NIGHT_DIR } from './night-summary.ts';
import { seasonFile } from './layout.ts';
import { ENDPOINTS } from '../schemas/endpoints.ts';
import type { Fail } from './verify-document.ts';
import type { TreeFiles } from './tree-files.ts';

const NAME = /^[1-9][0-9]*-of-[1-9][0-9]*\.json$/;

export function checkNightSummaries(
  files: TreeFiles,
  read: <T>(file: string, schema: z.ZodType<T>) => T | null,
  meta: SnapshotMeta,
  boards: readonly Leaderboard[],
  fail: Fail,
): void {
  // A tree without summaries is one its records do not list them in (the manifest check says so otherwise).
  for (const { name } of files.list(NIGHT_DIR) ?? []) {
    const file = `${NIGHT_DIR}/${name}`;
    if (!NAME.test(name)) continue;
    const summary = read(file, NightSummarySchema);
    if (summary) checkSummary(file, summary, meta, boards, fail);
  }
}

function checkSummary(file: string, summary: NightSummary, meta: SnapshotMeta, boards: readonly Leaderboard[], fail: Fail): void {
  if (`${summary.shard.index}-of-${summary.shard.count}.json` !== file.slice(NIGHT_DIR.length + 1))
    fail(`${file}: holds the summary of shard ${summary.shard.index} of ${summary.shard.count}`);
  if (summary.lastClosedDay !== meta.lastClosedDay)
    fail(`${file}: lastClosedDay ${summary.lastClosedDay}, but meta.json says ${meta.lastClosedDay}`);
  if (summary.asOf !== meta.dailyAsOf) fail(`${file}: asOf ${summary.asOf}, but meta.json says ${meta.dailyAsOf}`);
  if (summary.days.at(-1)!.date !== summary.lastClosedDay)
    fail(`${file}: its days end on ${summary.days.at(-1)!.date}, not on the last closed day ${summary.lastClosedDay}`);
  const seasons = summary.seasons.map((season) => season.season);
  if (JSON.stringify(seasons) !== JSON.stringify(meta.seasons))
    fail(`${file}: seasons ${seasons.join(', ')}, but meta.json says ${meta.seasons.join(', ')}`);
  for (const season of summary.seasons) {
    const board = boards.find((one) => one.season === season.season);
    if (!board) continue;
    // The build writes a leaderboard as JSON.stringify of the document, so these are its bytes.
    const digest = crypto.createHash('sha256').update(JSON.stringify(board)).digest('hex');
    if (season.leaderboardSha256 !== digest)
      fail(
        `${file}: season ${season.season}'s leaderboard digest ${season.leaderboardSha256} is not that of ${seasonFile(ENDPOINTS.leaderboard, season.season)} (${digest})`,
      );
    if (season.participants !== board.totalParticipants)
      fail(`${file}: season ${season.season} has ${season.participants} participants, its leaderboard ${board.totalParticipants}`);
    if (season.asOf !== board.asOf) fail(`${file}: season ${season.season}'s asOf ${season.asOf}, its leaderboard's ${board.asOf}`);
  }
}
