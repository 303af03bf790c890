/**
 * The one error a client's call rejects with: the status a host answered (a 4xx at once; a 5xx
 * once the retries are spent), or `status: null` when no answer came (the network's error is the
 * `cause`). The message names the request and says what was wrong, in the host's own sentence
 * when its body has one.
 */
export class ApiError extends Error {
  override name = 'ApiError';
  /** The HTTP status answered, or null when the request got no answer (see `cause`). */
  readonly status: number | null;
  /** The URL requested. */
  readonly url: string;

  constructor(message: string, details: { status: number | null; url: string; cause?: unknown }) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.status = details.status;
    this.url = details.url;
  }
}

/** The sentence of an error body `{"error": "..."}`, or the start of whatever else came back. */
export function errorSentence(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: unknown };
    if (typeof body?.error === 'string') return body.error;
  } catch {
    // not JSON: a proxy's or a static host's own error page
  }
  return text.trim().slice(0, 200) || '(empty body)';
}
