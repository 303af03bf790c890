/**
 * `validate: true`: each document checked against the schema the build writes it with. Loaded by
 * the client with a dynamic `import()` the first time it validates, so that an app which does not
 * validate never loads zod or the schemas (a bundler that splits code puts them in a chunk of their
 * own).
 */
import type { z } from 'zod';
import { DailyPortfolioSchema } from '../schemas/daily-portfolio.ts';
import { LeaderboardSchema } from '../schemas/leaderboard.ts';
import { PointsHistorySchema } from '../schemas/points-history.ts';
import { PointsStandingSchema } from '../schemas/points.ts';
import { PortfolioHistorySchema } from '../schemas/portfolio-history.ts';
import { SeasonsIndexSchema } from '../schemas/seasons.ts';
import { ApiError } from './api-error.ts';
import type { DocumentKind, DocumentValidator } from './request.ts';

const SCHEMAS: Record<DocumentKind, z.ZodType> = {
  portfolio: PortfolioHistorySchema,
  daily: DailyPortfolioSchema,
  leaderboard: LeaderboardSchema,
  points: PointsStandingSchema,
  pointsHistory: PointsHistorySchema,
  seasons: SeasonsIndexSchema,
};

/** Throws an ApiError naming the first few places where `document` is not a `kind` document. */
export const validateDocument: DocumentValidator = async (kind, document, url) => {
  const result = SCHEMAS[kind].safeParse(document);
  if (result.success) return;
  const issues = result.error.issues.slice(0, 3).map((issue) => `${issue.path.join('.') || '(the document)'}: ${issue.message}`);
  const more = result.error.issues.length > 3 ? `; and ${result.error.issues.length - 3} more` : '';
  throw new ApiError(`GET ${url} answered a document that is not a ${kind} document: ${issues.join('; ')}${more}`, {
    kind: 'http',
    status: 200,
    url,
  });
};
