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

/** The methods every host answers; any other gets 405 with these in `Allow`. */
export const ALLOWED_METHODS = ['GET', 'HEAD', 'OPTIONS'] as const;

/** How long a browser may keep a CORS preflight's answer. */
export const CORS_MAX_AGE_SECONDS = 86400;
