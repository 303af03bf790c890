/**
 * The files every shard writes identically: one leaderboard per known season, the seasons index,
 * the no-history answers and the snapshot's meta. Each document is checked against its schema
 * before writing.
 */
import type { z } from 'zod';
import type { TreeWriter } from './tree-writer.ts';
import { LeaderboardSchema, type Leaderboard } from '../../schemas/leaderboard.ts';
import { DailyPortfolioSchema } from '../../schemas/daily-portfolio.ts';
import { PortfolioHistorySchema } from '../../schemas/portfolio-history.ts';
import { PointsStandingSchema } from '../../schemas/points.ts';
import { PointsHistorySchema } from '../../schemas/points-history.ts';
import { SeasonsIndexSchema, type SeasonsIndex } from '../../schemas/seasons.ts';
import { SnapshotMetaSchema, type SnapshotMeta } from '../../schemas/meta.ts';
import {
  leaderboardFile,
  META_FILE,
  NO_HISTORY_DAILY_FILE,
  NO_HISTORY_POINTS_FILE,
  NO_HISTORY_POINTS_HISTORY_FILE,
  NO_HISTORY_PORTFOLIO_FILE,
  OPENAPI_FILE,
  SEASONS_FILE,
} from '../../tree/layout.ts';
import { openApiDocument } from '../../schemas/openapi.ts';
import { writeExplorer } from './explorer.ts';
import {
  CLOUDFRONT_FUNCTION_FILE,
  cloudFrontViewerRequest,
  NETLIFY_HEADERS_FILE,
  NETLIFY_REDIRECTS_FILE,
  netlifyHeaders,
  netlifyRedirects,
} from '../../tree/cdn-files.ts';

export async function writeSharedFiles(
  writer: TreeWriter,
  leaderboards: Leaderboard[],
  seasons: SeasonsIndex,
  meta: SnapshotMeta,
): Promise<void> {
  for (const board of leaderboards) await writeDocument(writer, leaderboardFile(board.season), LeaderboardSchema, board);
  await writeDocument(writer, SEASONS_FILE, SeasonsIndexSchema, seasons);
  await writeDocument(writer, NO_HISTORY_PORTFOLIO_FILE, PortfolioHistorySchema, {});
  await writeDocument(writer, NO_HISTORY_DAILY_FILE, DailyPortfolioSchema, { asOf: meta.dailyAsOf, days: [] });
  await writeDocument(writer, NO_HISTORY_POINTS_FILE, PointsStandingSchema, { seasons: [] });
  await writeDocument(writer, NO_HISTORY_POINTS_HISTORY_FILE, PointsHistorySchema, { seasons: [] });
  await writeDocument(writer, META_FILE, SnapshotMetaSchema, meta);
  await writer.write(OPENAPI_FILE, JSON.stringify(openApiDocument()));
  await writer.write(NETLIFY_HEADERS_FILE, netlifyHeaders());
  await writer.write(NETLIFY_REDIRECTS_FILE, netlifyRedirects(meta.seasons));
  await writer.write(CLOUDFRONT_FUNCTION_FILE, cloudFrontViewerRequest(meta.seasons));
  await writeExplorer(writer, meta);
}

async function writeDocument<T>(writer: TreeWriter, file: string, schema: z.ZodType<T>, document: T): Promise<void> {
  schema.parse(document);
  await writer.write(file, JSON.stringify(document));
}
