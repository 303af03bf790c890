/**
 * The error a client's call rejects with when the host answered wrong, did not answer, or took
 * too long: `kind` says which (`http`, `network`, `timeout`), `status` is the last status answered
 * (null when no answer came), `error` the host's own sentence (null when its body had none). The
 * message names the request and says what was wrong. An abort is not an ApiError: the call
 * rejects with the signal's reason, the platform's `AbortError` (docs/api.md).
 */
export type ApiErrorKind = 'http' | 'network' | 'timeout';

export interface ApiErrorDetails {
  kind: ApiErrorKind;
  status: number | null;
  url: string;
  /** The host's sentence, `{"error": "..."}` of its body; null when it sent none. */
  error?: string | null;
  cause?: unknown;
}

export class ApiError extends Error {
  override name = 'ApiError';
  /** `http`: the host answered, with an error status or a body that is not the document; `network`: no answer (see `cause`); `timeout`: no whole answer within `timeout`. */
  readonly kind: ApiErrorKind;
  /** The HTTP status of the last answer, or null when the request got no answer. */
  readonly status: number | null;
  /** The URL requested. */
  readonly url: string;
  /** The host's own sentence (the `error` of its JSON body), or null when it sent none. */
  readonly error: string | null;

  constructor(message: string, details: ApiErrorDetails) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.kind = details.kind;
    this.status = details.status;
    this.url = details.url;
    this.error = details.error ?? null;
  }
}

/** The sentence of an error body `{"error": "..."}`, or null when the body is not one. */
export function serverSentence(text: string): string | null {
  try {
    const body = JSON.parse(text) as { error?: unknown };
    if (typeof body?.error === 'string') return body.error;
  } catch {
    // not JSON: a proxy's or a static host's own error page
  }
  return null;
}
