/**
 * A seeded fault-injecting HTTP proxy in front of an S3-protocol server on loopback: each request
 * is forwarded, or, with the chosen probability, answered with one of the chosen faults. The same
 * seed and the same sequence of requests give the same faults, so a failing run can be replayed.
 *
 * Faults:
 *   500         500 InternalError, the request not forwarded
 *   slow-down   503 SlowDown, the request not forwarded
 *   reset       the connection closed before any answer (the request may or may not have reached the
 *               store: `reset-after` forwards it first, so that a write is stored and its answer lost)
 *   truncate    the store's answer with its headers and half its body, then the connection closed
 *   stall       nothing for `stallMs`, then the store's answer (if the client still waits)
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { seededRandom } from '../../core/seeded-random.ts';

export type FaultKind = '500' | 'slow-down' | 'reset' | 'reset-after' | 'truncate' | 'stall';
export const FAULT_KINDS: readonly FaultKind[] = ['500', 'slow-down', 'reset', 'reset-after', 'truncate', 'stall'];

export interface FaultPlan {
  /** The faults to draw from, each as likely as the others. */
  kinds: readonly FaultKind[];
  /** The share of requests that get a fault (0 to 1). */
  share: number;
  seed: number;
  /** How long a stall lasts; 10 s in the field, shortened in tests with the client's stall timeout. */
  stallMs?: number;
  /** Only requests this accepts may get a fault (default: every request). */
  applies?: (request: http.IncomingMessage) => boolean;
}

export interface ProxiedRequest {
  method: string;
  /** The path and query, decoded. */
  url: string;
  fault: FaultKind | null;
  /** The request body's length as declared (Content-Length). */
  bytes: number;
}

export interface RunningFaultProxy {
  endpoint: string;
  requests: ProxiedRequest[];
  /** Faults answered so far, by kind. */
  faults(): Partial<Record<FaultKind, number>>;
  /** Changes the plan from the next request on (e.g. to a healthy store: share 0). */
  replan(plan: Partial<FaultPlan>): void;
  close(): Promise<void>;
}

export async function startFaultProxy(upstream: string, initial: FaultPlan): Promise<RunningFaultProxy> {
  const target = new URL(upstream);
  const requests: ProxiedRequest[] = [];
  let plan = { stallMs: 10_000, ...initial };
  let random = seededRandom(plan.seed);
  const timers = new Set<NodeJS.Timeout>();

  const draw = (request: http.IncomingMessage): FaultKind | null => {
    // Drawn for every request, faulted or not, so that the sequence depends on the requests alone.
    const roll = random();
    const pick = random();
    if (plan.applies && !plan.applies(request)) return null;
    if (roll >= plan.share || plan.kinds.length === 0) return null;
    return plan.kinds[Math.floor(pick * plan.kinds.length)]!;
  };

  const forward = (request: http.IncomingMessage, response: http.ServerResponse, fault: FaultKind | null) => {
    const upstreamRequest = http.request(
      { host: target.hostname, port: target.port, method: request.method, path: request.url, headers: request.headers },
      (answer) => {
        if (fault === 'reset-after') {
          answer.resume();
          answer.on('end', () => request.socket.destroy());
          return;
        }
        if (fault !== 'truncate') {
          response.writeHead(answer.statusCode!, answer.headers);
          answer.pipe(response);
          return;
        }
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          const body = Buffer.concat(chunks);
          // The headers and half the body, then the connection is cut: the client has a
          // Content-Length it will never reach, and a body stream that fails. An empty body (a
          // write's answer) cannot be cut short: the connection is cut before its headers.
          if (body.length > 0) {
            response.writeHead(answer.statusCode!, answer.headers);
            response.write(body.subarray(0, Math.floor(body.length / 2)));
          }
          setImmediate(() => request.socket.destroy());
        });
      },
    );
    upstreamRequest.on('error', () => request.socket.destroy());
    request.pipe(upstreamRequest);
  };

  const server = http.createServer((request, response) => {
    const fault = draw(request);
    requests.push({
      method: request.method!,
      url: decodeURIComponent(request.url!),
      fault,
      bytes: Number(request.headers['content-length'] ?? 0),
    });
    switch (fault) {
      case '500':
      case 'slow-down': {
        const [status, code, message] =
          fault === '500'
            ? [500, 'InternalError', 'We encountered an internal error. Please try again.']
            : [503, 'SlowDown', 'Please reduce your request rate.'];
        request.resume();
        request.on('end', () => {
          response.writeHead(status, { 'Content-Type': 'application/xml' });
          response.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`);
        });
        return;
      }
      case 'reset':
        request.socket.destroy();
        return;
      case 'stall': {
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!request.socket.destroyed) forward(request, response, null);
        }, plan.stallMs);
        timers.add(timer);
        return;
      }
      default:
        forward(request, response, fault);
    }
  });
  return {
    endpoint: await listenOnLoopback(server),
    requests,
    faults: () => {
      const counts: Partial<Record<FaultKind, number>> = {};
      for (const request of requests) if (request.fault) counts[request.fault] = (counts[request.fault] ?? 0) + 1;
      return counts;
    },
    replan: (changes) => {
      plan = { ...plan, ...changes };
      if (changes.seed !== undefined) random = seededRandom(changes.seed);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** `server` listening on a free loopback port, its connections kept alive as an SDK's are; its URL. */
export async function listenOnLoopback(server: http.Server): Promise<string> {
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
