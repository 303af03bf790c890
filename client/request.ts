/**
 * One GET of a document, as every function of the client makes it: revalidated with the ETag
 * remembered for its URL (a 304 resolves to the remembered document), retried with backoff when
 * the host answers 5xx or nothing at all, never when it answers anything else, and never past the
 * call's timeout or its caller's abort (call-limits.ts).
 */
import { ApiError, serverSentence } from './api-error.ts';
import { type CallLimits, pause, withinLimits } from './call-limits.ts';
import type { ROUTES } from './endpoints.ts';
import type { EtagMemory } from './etag-memory.ts';

/** Which document a call asks for: the name of its function. */
export type DocumentKind = keyof typeof ROUTES;

/** Rejects (with an ApiError) when `document`, answered at `url`, is not a `kind` document. */
export type DocumentValidator = (kind: DocumentKind, document: unknown, url: string) => Promise<void>;

/** What the client gives `fetch`: the headers, and the signal that closes the request on an abort or the timeout. */
export interface FetchInit {
  headers: Record<string, string>;
  signal: AbortSignal;
}

export interface Transport {
  fetch(url: string, init: FetchInit): Promise<Response>;
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

/** How far a call got: what its timeout's error says. */
interface Progress {
  attempts: number;
  status: number | null;
}

export function getDocument(transport: Transport, url: string, kind: DocumentKind, limits: CallLimits): Promise<unknown> {
  const progress: Progress = { attempts: 0, status: null };
  const timedOut = () => {
    const tries = progress.attempts > 1 ? ` (${progress.attempts} attempts)` : '';
    const last = progress.status === null ? '' : `; the last status answered was ${progress.status}`;
    return new ApiError(`GET ${url} got no whole answer within ${limits.timeout} ms (the timeout)${tries}${last}`, {
      kind: 'timeout',
      status: progress.status,
      url,
    });
  };
  return withinLimits(limits, (signal) => attempts(transport, url, kind, signal, progress), timedOut);
}

async function attempts(transport: Transport, url: string, kind: DocumentKind, signal: AbortSignal, progress: Progress): Promise<unknown> {
  const remembered = transport.memory.get(url);
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (remembered) headers['If-None-Match'] = remembered.etag;
  for (let attempt = 1; ; attempt++) {
    progress.attempts = attempt;
    let outcome: Outcome;
    try {
      const response = await transport.fetch(url, { headers, signal });
      progress.status = response.status;
      // The body is read inside the try: a connection cut while it arrives is a network failure too.
      outcome = { status: response.status, text: await response.text(), etag: response.headers.get('ETag') };
    } catch (failure) {
      // Aborted (by the caller or the timeout): the call has settled already; nothing is retried.
      if (signal.aborted) throw signal.reason;
      outcome = { failure };
    }
    const retryable = 'failure' in outcome || outcome.status >= 500;
    if (retryable && attempt <= transport.retries) {
      await pause(transport.backoff(attempt), signal);
      if (signal.aborted) throw signal.reason;
      continue;
    }
    const tries = attempt === 1 ? '' : ` (${attempt} attempts)`;
    if ('failure' in outcome) {
      throw new ApiError(`GET ${url} got no answer${tries}: ${describe(outcome.failure)}`, {
        kind: 'network',
        status: null,
        url,
        cause: outcome.failure,
      });
    }
    const { status, text, etag } = outcome;
    if (status === 304) {
      if (!remembered) {
        throw new ApiError(`GET ${url} answered 304 Not Modified, but this client remembers no document for it`, {
          kind: 'http',
          status,
          url,
        });
      }
      return parse(transport, remembered.text, status, url);
    }
    if (status < 200 || status > 299) {
      const sentence = serverSentence(text);
      const said = sentence ?? (text.trim().slice(0, 200) || '(empty body)');
      throw new ApiError(`GET ${url} answered ${status}${tries}: ${said}`, { kind: 'http', status, url, error: sentence });
    }
    const document = parse(transport, text, status, url);
    if (transport.validate) await validated(transport.validate, kind, document, status, url);
    if (etag) transport.memory.set(url, { etag, text });
    return document;
  }
}

function parse(transport: Transport, text: string, status: number, url: string): unknown {
  try {
    return transport.parse(text);
  } catch (error) {
    const message = `GET ${url} answered ${status} with a body that is not JSON (${(error as Error).message}): ${text.slice(0, 100)}`;
    throw new ApiError(message, { kind: 'http', status, url, cause: error });
  }
}

/**
 * A validator's refusal as this module's ApiError: the validator of another copy of the client
 * (the light package given `wallet-snapshot/client/validation`) throws its own class. Any other
 * error (the schemas could not be loaded) is the validator's own and goes as it is.
 */
async function validated(validate: DocumentValidator, kind: DocumentKind, document: unknown, status: number, url: string): Promise<void> {
  try {
    await validate(kind, document, url);
  } catch (error) {
    if (error instanceof ApiError || !(error instanceof Error) || error.name !== 'ApiError') throw error;
    throw new ApiError(error.message, { kind: 'http', status, url, cause: error });
  }
}

/** A network error in a sentence: fetch's own ("fetch failed") says little, its cause says what. */
function describe(failure: unknown): string {
  if (!(failure instanceof Error)) return String(failure);
  const cause = failure.cause instanceof Error ? failure.cause : null;
  return cause ? `${failure.message} (${cause.message})` : failure.message;
}
