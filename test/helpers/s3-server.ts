/**
 * A real S3-protocol server on a loopback port (s3rver, storing in a folder), and an HTTP proxy in
 * front of it that can answer throttling or drop connections, to test what publish does on the
 * wire.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from './fixtures.ts';
import { listenOnLoopback } from './fault-proxy.ts';

const SERVER_SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 's3rver-process.mjs');

export const BUCKET = 'snapshots';

/** s3rver's built-in key pair. */
export const S3_CREDENTIALS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1' };

export interface RunningS3 {
  endpoint: string;
  /** The folder s3rver stores objects in. */
  directory: string;
  close(): Promise<void>;
}

/** s3rver in a child process (see s3rver-process.mjs), on a free loopback port. */
export async function startS3Server(directory = tempDir('ws-s3-'), bucket = BUCKET): Promise<RunningS3> {
  const child = spawn(process.execPath, ['--openssl-legacy-provider', SERVER_SCRIPT, directory, bucket], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (data) => {
      output += data;
      if (output.includes('\n')) resolve(Number(output.trim()));
    });
    child.once('exit', (code) => reject(new Error(`s3rver exited with ${code} before listening`)));
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    directory,
    close: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** What the proxy does with the n-th request (1-based). */
export type Fault = 'forward' | 'slow-down' | 'too-many-requests' | 'drop' | 'stall';

export interface RunningProxy {
  endpoint: string;
  /** Requests received so far, by method, with the bytes of their bodies (Content-Length). */
  requests: { method: string; url: string; fault: Fault; bytes: number }[];
  close(): Promise<void>;
}

export async function startFaultyProxy(
  upstream: string,
  faultOf: (n: number, request: http.IncomingMessage) => Fault,
): Promise<RunningProxy> {
  const target = new URL(upstream);
  const requests: RunningProxy['requests'] = [];
  const server = http.createServer((request, response) => {
    const fault = faultOf(requests.length + 1, request);
    requests.push({ method: request.method!, url: request.url!, fault, bytes: Number(request.headers['content-length'] ?? 0) });
    if (fault === 'stall') return; // never answered, until the client gives up
    if (fault === 'drop') {
      request.socket.destroy();
      return;
    }
    if (fault === 'slow-down' || fault === 'too-many-requests') {
      const [status, code] = fault === 'slow-down' ? [503, 'SlowDown'] : [429, 'TooManyRequests'];
      request.resume();
      request.on('end', () => {
        response.writeHead(status, { 'Content-Type': 'application/xml' });
        response.end(
          `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>Please reduce your request rate.</Message></Error>`,
        );
      });
      return;
    }
    const forwarded = http.request(
      { host: target.hostname, port: target.port, method: request.method, path: request.url, headers: request.headers },
      (answer) => {
        response.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(response);
      },
    );
    forwarded.on('error', () => request.socket.destroy());
    request.pipe(forwarded);
  });
  return {
    endpoint: await listenOnLoopback(server),
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The requests an object store bills as writes (R2's class A, S3's PUT/COPY/POST/LIST tier without
 * the lists): PUT (an upload, a copy, a part), POST (a multipart upload's start and end,
 * DeleteObjects) and DELETE.
 */
export function writeRequests(requests: RunningProxy['requests']): RunningProxy['requests'] {
  return requests.filter((request) => request.fault === 'forward' && ['PUT', 'POST', 'DELETE'].includes(request.method));
}

/** The bound a night is held to (docs/publishing.md#what-a-night-costs-in-the-store): 100 write requests, plus 2 per 64 MiB sent. */
export function nightBound(requests: RunningProxy['requests']): number {
  const sent = writeRequests(requests).reduce((sum, request) => sum + request.bytes, 0);
  return 100 + 2 * Math.ceil(sent / (64 * 1024 * 1024));
}
