/**
 * The night's summary file (schemas/night-summary.ts), written and parsed here only: where it
 * lives in a tree, its bytes, and how the summaries of a sharded night's N shards add up to the
 * night's (the counts and sums add, the facts of the whole export must agree).
 */
import { NightSummarySchema, type NightSummary } from '../schemas/night-summary.ts';
import type { ShardName } from './manifest-files.ts';

/** One file per build (shard K of N; a whole tree is 1 of 1), as the build's own records are. */
export const NIGHT_DIR = '_snapshot/night';

export function nightSummaryFile(shard: ShardName): string {
  return `${NIGHT_DIR}/${shard.index}-of-${shard.count}.json`;
}

export function nightSummaryText(summary: NightSummary): string {
  return JSON.stringify(NightSummarySchema.parse(summary));
}

/** The summary in `text`, or why it is not one (`where` names the file or object in the message). */
export function parseNightSummary(text: string, where: string): NightSummary {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`${where} is not JSON (${(error as Error).message})`, { cause: error });
  }
  const result = NightSummarySchema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new Error(`${where} is not a night's summary (${issue.path.join('.') || 'the document'}: ${issue.message})`, {
      cause: result.error,
    });
  }
  return result.data;
}

/**
 * The N shards' summaries as one night's (shard 1 of 1). Throws, naming the shard, when one
 * disagrees with shard 1 on a fact of the whole export: they come from one build, so that is a
 * summary edited or written by another build.
 */
export function addShardSummaries(summaries: readonly NightSummary[]): NightSummary {
  const first = summaries[0]!;
  const shared = (summary: NightSummary) =>
    JSON.stringify([
      summary.shard.count,
      summary.lastClosedDay,
      summary.asOf,
      summary.days.map((day) => day.date),
      summary.seasons.map(({ participantsByDay: _, ...season }) => season),
    ]);
  const total: NightSummary = {
    ...first,
    shard: { index: 1, count: 1 },
    wallets: 0,
    positions: 0,
    positionsWithoutPrice: 0,
    days: first.days.map((day) => ({ date: day.date, totalValueUsd: 0 })),
    seasons: first.seasons.map((season) => ({ ...season, participantsByDay: season.participantsByDay.map(() => 0) })),
  };
  for (const summary of summaries) {
    if (shared(summary) !== shared(first)) {
      throw new Error(
        `the night summary of shard ${summary.shard.index} of ${summary.shard.count} disagrees with shard ${first.shard.index}'s on the facts every shard shares (last closed day, asOf, seasons)`,
      );
    }
    total.wallets += summary.wallets;
    total.positions += summary.positions;
    total.positionsWithoutPrice += summary.positionsWithoutPrice;
    summary.days.forEach((day, i) => (total.days[i]!.totalValueUsd += day.totalValueUsd));
    summary.seasons.forEach((season, s) =>
      season.participantsByDay.forEach((count, i) => (total.seasons[s]!.participantsByDay[i]! += count)),
    );
  }
  return NightSummarySchema.parse(total);
}
