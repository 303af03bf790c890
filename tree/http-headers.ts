/**
 * The response headers of every `/v1` document, in one place: the preview server sends them and
 * the CDN configuration files written into the tree declare them.
 */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * Documents change once a night: clients and CDNs may reuse one for five minutes and then must
 * revalidate (ETag / Last-Modified make that a cheap 304).
 */
export const DOCUMENT_CACHE_CONTROL = 'public, max-age=300, must-revalidate';

/** Errors are not cached: tomorrow's tree may know a season that today's does not. */
export const ERROR_CACHE_CONTROL = 'no-cache';

export const CORS_HEADERS = { 'Access-Control-Allow-Origin': '*' } as const;
