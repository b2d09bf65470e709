/**
 * The base URL a client reached the service at, for the URLs org hands back (the MCP
 * `do` tool's `artifact_urls`). `ORG_PUBLIC_URL` when set; else, behind a proxy named by
 * `--trust-proxy`, what that proxy says (`X-Forwarded-Proto`, `X-Forwarded-Host`) — only
 * when the connection comes from it; else the listening URL. A client's own `Host` or
 * forwarded headers never choose it.
 */
import { isIPv4, type Socket } from 'node:net';
import { addressKey, proxyList } from './http/connections.js';

/** A host (name or address, optional port) as a forwarded header may carry it. */
const HOST = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/** The last value of a header that proxies append to (`a, b` → `b`). */
function last(value: string | string[] | undefined): string | undefined {
  const raw = Array.isArray(value) ? value.at(-1) : value;
  const entry = raw?.split(',').at(-1)?.trim();
  return entry ? entry : undefined;
}

/** Builds the function that gives a request's public base URL. */
export function publicBaseUrls(options: { configured?: string | undefined; trustProxy: readonly string[]; listening: () => string }): (request: { socket: Socket; headers: Record<string, string | string[] | undefined> }) => string {
  const proxies = options.trustProxy.length > 0 ? proxyList(options.trustProxy) : undefined;
  return (request) => {
    if (options.configured) return options.configured;
    if (proxies) {
      const peer = addressKey(request.socket);
      const host = last(request.headers['x-forwarded-host']);
      if (peer !== '' && proxies.check(peer, isIPv4(peer) ? 'ipv4' : 'ipv6') && host && HOST.test(host)) {
        const proto = last(request.headers['x-forwarded-proto'])?.toLowerCase() === 'https' ? 'https' : 'http';
        return `${proto}://${host.toLowerCase()}`;
      }
    }
    return options.listening();
  };
}
