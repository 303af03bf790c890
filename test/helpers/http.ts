import http from 'node:http';
import net from 'node:net';
import zlib from 'node:zlib';
import { startPreviewServer, type RunningServer } from '../../server/index.ts';

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body, decompressed. */
  text: string;
  json: any;
}

/** A raw request (the path is sent as given, unnormalised), decompressing gzip and brotli. */
export function request(base: string, path: string, options: { method?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path, method: options.method ?? 'GET', headers: options.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => {
          let body = Buffer.concat(chunks);
          const encoding = res.headers['content-encoding'];
          if (encoding === 'gzip') body = zlib.gunzipSync(body);
          if (encoding === 'br') body = zlib.brotliDecompressSync(body);
          const text = body.toString('utf8');
          let json: unknown;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode!, headers: res.headers, text, json });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Serves `dir` on a free loopback port for the length of `body`. */
export async function withServer<T>(dir: string, body: (base: string, running: RunningServer) => Promise<T>): Promise<T> {
  const running = await startPreviewServer({ dir, port: 0, host: '127.0.0.1' });
  try {
    return await body(running.url, running);
  } finally {
    await running.close();
  }
}

/** Raw bytes to a server, and everything it answers until it closes the connection. */
export function rawExchange(base: string, bytes: string): Promise<string> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname, () => socket.write(bytes));
    let answer = '';
    socket.on('data', (data) => (answer += data));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}
