/**
 * The files every shard writes identically: one leaderboard per known season, the seasons index,
 * the no-history answers (the endpoint table's, schemas/endpoints.ts) and the snapshot's meta.
 * Each document is checked against its schema before writing.
 */
import type { z } from 'zod';
import type { TreeWriter } from './tree-writer.ts';
import { LeaderboardSchema, type Leaderboard } from '../../schemas/leaderboard.ts';
import { SeasonsIndexSchema, type SeasonsIndex } from '../../schemas/seasons.ts';
import { SnapshotMetaSchema, type SnapshotMeta } from '../../schemas/meta.ts';
import { seasonFile, META_FILE, OPENAPI_FILE, SEASONS_FILE } from '../../tree/layout.ts';
import { ENDPOINTS, noHistoryFile } from '../../schemas/endpoints.ts';
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
  for (const board of leaderboards) await writeDocument(writer, seasonFile(ENDPOINTS.leaderboard, board.season), LeaderboardSchema, board);
  await writeDocument(writer, SEASONS_FILE, SeasonsIndexSchema, seasons);
  // The no-history answers, as the endpoint table says them.
  for (const [name, endpoint] of Object.entries(ENDPOINTS)) {
    if (endpoint.noHistory) await writeDocument(writer, noHistoryFile(name), endpoint.schema, endpoint.noHistory(meta));
  }
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
