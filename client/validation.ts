/**
 * `validate: true`: each document checked against the schema the build writes it with. Loaded by
 * the client with a dynamic `import()` the first time it validates, so that an app which does not
 * validate never loads zod or the schemas (a bundler that splits code puts them in a chunk of their
 * own).
 */
import { ENDPOINTS, type EndpointTable } from '../schemas/endpoints.ts';
import { ApiError } from './api-error.ts';
import type { DocumentValidator } from './request.ts';

/** Throws an ApiError naming the first few places where `document` is not a `kind` document. */
export const validateDocument: DocumentValidator = async (kind, document, url) => {
  const endpoint = (ENDPOINTS as EndpointTable)[kind];
  if (!endpoint) throw new Error(`validate: the endpoint table has no ${kind} document to check it against`);
  const result = endpoint.schema.safeParse(document);
  if (result.success) return;
  const issues = result.error.issues.slice(0, 3).map((issue) => `${issue.path.join('.') || '(the document)'}: ${issue.message}`);
  const more = result.error.issues.length > 3 ? `; and ${result.error.issues.length - 3} more` : '';
  throw new ApiError(`GET ${url} answered a document that is not a ${kind} document: ${issues.join('; ')}${more}`, {
    kind: 'http',
    status: 200,
    url,
  });
};
