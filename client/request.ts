/**
 * One GET of a document, as every function of the client makes it: revalidated with the ETag
 * remembered for its URL (a 304 resolves to the remembered document), retried with backoff when
 * the host answers 5xx or nothing at all, never when it answers anything else.
 */
import { ApiError, errorSentence } from './api-error.ts';
import type { EtagMemory } from './etag-memory.ts';

export type DocumentKind = 'portfolio' | 'daily' | 'leaderboard' | 'points' | 'pointsHistory' | 'seasons';

/** Rejects (with an ApiError) when `document`, answered at `url`, is not a `kind` document. */
export type DocumentValidator = (kind: DocumentKind, document: unknown, url: string) => Promise<void>;

export interface Transport {
  fetch(url: string, init: { headers: Record<string, string> }): Promise<Response>;
  retries: number;
  /** Milliseconds to wait before retry number `retry` (1, 2, ...). */
  backoff(retry: number): number;
  memory: EtagMemory;
  parse(text: string): unknown;
  validate: DocumentValidator | null;
}

/**
 * The default wait before retry `retry`: 100 ms, then 200 ms, 400 ms..., each drawn between half
 * and all of that ("equal jitter"), so that many clients failing together do not retry together.
 */
export function defaultBackoff(retry: number): number {
  const ceiling = 100 * 2 ** Math.min(retry - 1, 6);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

type Outcome = { status: number; text: string; etag: string | null } | { failure: unknown };

export async function getDocument(transport: Transport, url: string, kind: DocumentKind): Promise<unknown> {
  const remembered = transport.memory.get(url);
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (remembered) headers['If-None-Match'] = remembered.etag;
  for (let attempt = 1; ; attempt++) {
    let outcome: Outcome;
    try {
      const response = await transport.fetch(url, { headers });
      // The body is read inside the try: a connection cut while it arrives is a network failure too.
      outcome = { status: response.status, text: await response.text(), etag: response.headers.get('ETag') };
    } catch (failure) {
      outcome = { failure };
    }
    const retryable = 'failure' in outcome || outcome.status >= 500;
    if (retryable && attempt <= transport.retries) {
      await new Promise((resolve) => setTimeout(resolve, transport.backoff(attempt)));
      continue;
    }
    const tries = attempt === 1 ? '' : ` (${attempt} attempts)`;
    if ('failure' in outcome) {
      throw new ApiError(`GET ${url} got no answer${tries}: ${describe(outcome.failure)}`, { status: null, url, cause: outcome.failure });
    }
    const { status, text, etag } = outcome;
    if (status === 304) {
      if (!remembered) {
        throw new ApiError(`GET ${url} answered 304 Not Modified, but this client remembers no document for it`, { status, url });
      }
      return parse(transport, remembered.text, status, url);
    }
    if (status < 200 || status > 299) throw new ApiError(`GET ${url} answered ${status}${tries}: ${errorSentence(text)}`, { status, url });
    const document = parse(transport, text, status, url);
    if (transport.validate) await transport.validate(kind, document, url);
    if (etag) transport.memory.set(url, { etag, text });
    return document;
  }
}

function parse(transport: Transport, text: string, status: number, url: string): unknown {
  try {
    return transport.parse(text);
  } catch (error) {
    const message = `GET ${url} answered ${status} with a body that is not JSON (${(error as Error).message}): ${text.slice(0, 100)}`;
    throw new ApiError(message, { status, url, cause: error });
  }
}

/** A network error in a sentence: fetch's own ("fetch failed") says little, its cause says what. */
function describe(failure: unknown): string {
  if (!(failure instanceof Error)) return String(failure);
  const cause = failure.cause instanceof Error ? failure.cause : null;
  return cause ? `${failure.message} (${cause.message})` : failure.message;
}
