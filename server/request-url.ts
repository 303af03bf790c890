/**
 * The URL a request target and Host make, by the rules of the Node host's adapter
 * (@hono/node-server 2.x, `newRequest` and `buildUrl`), or the reason it refuses them. The Node
 * server gets these from the adapter itself; the edge in front of workerd (preview/workerd.ts)
 * applies them before forwarding, so that both runtimes accept and refuse the same requests
 * (workerd alone answers a bare 500 for an absolute-form target or a Host it cannot parse, and
 * 200 for an empty Host or a backslash in the path). test/http-properties.test.ts holds the two to
 * the same statuses.
 */

/** A host name workerd's own URL parser takes (it fails the request with a bare 500 on any other, e.g. `*`). */
const WORKERD_HOST = /^(?:[a-z0-9._-]+|\[[0-9a-f:.]+\])$/;

/** A Host the adapter takes as it is (a name or an address, and a port). */
const PLAIN_HOST = /^[a-z0-9._-]+(?::(?:[1-5]\d{3,4}|[6-9]\d{3}))?$/;
/** A path the adapter takes as it is: no character URL parsing would change, no dot segment. */
const PLAIN_TARGET = /^\/[!#$&-;=?-[\]_a-z~]*$/;
const DOT_SEGMENT = /\/\.\.?(?:[/?#]|$)/;

export type RequestUrl = { url: URL } | { error: string };

/** `host`: the Host header (undefined or empty when the request has none). */
export function requestUrl(target: string, host: string | undefined): RequestUrl {
  if (target[0] !== '/' && (target.startsWith('http://') || target.startsWith('https://'))) {
    // The absolute form names its own host; the Host header is not read.
    if (backslashInPath(target)) return { error: 'Invalid absolute URL' };
    return parsed(target) ?? { error: 'Invalid absolute URL' };
  }
  if (!host) return { error: 'Missing host header' };
  const whole = `http://${host}${target}`;
  if (!PLAIN_HOST.test(host)) {
    if (backslashInPath(target)) return { error: 'Backslash in request path' };
    const result = parsed(whole);
    if (!result) return { error: 'Invalid URL' };
    const bare = (host.includes(':') ? host.replace(/:\d+$/, '') : host).toLowerCase();
    if (result.url.hostname.length !== host.length && result.url.hostname !== bare) return { error: 'Invalid host header' };
    return result;
  }
  if (target === '') return parsed(`${whole}/`) ?? { error: 'Invalid URL' };
  if (target[0] !== '/') return { error: 'Invalid URL' };
  if (!PLAIN_TARGET.test(target) || DOT_SEGMENT.test(target)) {
    if (backslashInPath(target)) return { error: 'Backslash in request path' };
  }
  return parsed(whole) ?? { error: 'Invalid URL' };
}

function backslashInPath(target: string): boolean {
  const backslash = target.indexOf('\\');
  if (backslash === -1) return false;
  const query = target.indexOf('?');
  return query === -1 || backslash < query;
}

function parsed(text: string): { url: URL } | null {
  try {
    return { url: new URL(text) };
  } catch {
    return null;
  }
}

/**
 * The Host the edge forwards to workerd for `url`: its own when workerd can parse it, else
 * `localhost` (with the port). The Node host answers a Host such as `*` as any other, and the
 * handler reads only the path and the query, so the answer is the same either way.
 */
export function forwardedHost(url: URL): string {
  if (WORKERD_HOST.test(url.hostname)) return url.host;
  return url.port ? `localhost:${url.port}` : 'localhost';
}
