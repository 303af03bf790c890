/**
 * The JSON error answer of every host: `{"error": "<one sentence>"}` with the headers every
 * response carries. Also used by the Node adapter for requests that fail before the handler sees
 * them (a malformed request line, a missing Host, headers too large).
 */
import { CORS_HEADERS, ERROR_CACHE_CONTROL, JSON_CONTENT_TYPE } from '../tree/http-headers.ts';

export function errorBody(message: string): string {
  return JSON.stringify({ error: message });
}

export function errorHeaders(body: string): Record<string, string> {
  return {
    'Content-Type': JSON_CONTENT_TYPE,
    ...CORS_HEADERS,
    'Cache-Control': ERROR_CACHE_CONTROL,
    ETag: weakEtag(textDigest(body)),
  };
}

export function errorResponse(status: number, message: string, extraHeaders: Record<string, string> = {}): Response {
  const body = errorBody(message);
  return new Response(body, { status, headers: { ...errorHeaders(body), ...extraHeaders } });
}

/** The 405 of every host, for a method other than GET, HEAD and OPTIONS (its name cut to 20 characters). */
export function methodNotAllowedMessage(method: string): string {
  return `The method ${method.slice(0, 20)} is not allowed; use GET, HEAD or OPTIONS.`;
}

export const weakEtag = (tag: string) => `W/"${tag}"`;

/**
 * A short digest of an error body, for its validator: errors are not cached (no-cache), so a
 * 53-bit hash (cyrb53) that is synchronous on every runtime is enough.
 */
function textDigest(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16).padStart(14, '0');
}
