/**
 * Connection limits of the HTTP server (issue 28, finding 6): a client has
 * `headersTimeoutMs` to send its headers and `requestTimeoutMs` to send its whole request
 * (Node closes the connection past either, answering 408 as a problem), the server holds
 * at most `maxConnections` connections, and one client address at most
 * `maxConnectionsPerAddress` (a connection past either cap is closed as it opens, before a
 * byte is read). So a client trickling requests — no token needed — can neither hold a
 * connection for long nor take the descriptors the others and the state files need.
 * Responses are not bounded: a chat stream goes on for as long as its turn does.
 */
import type { Server } from 'node:http';
import { BlockList, isIPv4, type Socket } from 'node:net';
import type { FastifyServerOptions } from 'fastify';
import type { ConnectionLimits } from '../../core/config-connections.js';

/**
 * How often Node looks for requests past their timeouts, at most (its default, 30 s,
 * would let a dripping client hold on for up to 30 s beyond them).
 */
const CHECK_INTERVAL_MS = 1000;

/** The ranges `--trust-proxy` knows by name (as Fastify's proxy-addr names them). */
const NAMED_RANGES: Record<string, [string, number, 'ipv4' | 'ipv6'][]> = {
  loopback: [['127.0.0.0', 8, 'ipv4'], ['::1', 128, 'ipv6']],
  linklocal: [['169.254.0.0', 16, 'ipv4'], ['fe80::', 10, 'ipv6']],
  uniquelocal: [['10.0.0.0', 8, 'ipv4'], ['172.16.0.0', 12, 'ipv4'], ['192.168.0.0', 16, 'ipv4'], ['fc00::', 7, 'ipv6']],
};

/** Fastify's options for the timeouts (the caps are applied by {@link capConnections}). */
export function timeoutOptions(limits: ConnectionLimits): Pick<FastifyServerOptions, 'requestTimeout'> & { http: { headersTimeout: number; connectionsCheckingInterval: number } } {
  return {
    requestTimeout: limits.requestTimeoutMs,
    http: { headersTimeout: limits.headersTimeoutMs, connectionsCheckingInterval: Math.min(CHECK_INTERVAL_MS, limits.headersTimeoutMs) },
  };
}

/** A client address as one key: IPv4-mapped IPv6 (`::ffff:1.2.3.4`) is the IPv4 address. */
export function addressKey(socket: Socket): string {
  const address = socket.remoteAddress ?? '';
  const mapped = address.startsWith('::ffff:') ? address.slice(7) : address;
  return isIPv4(mapped) ? mapped : address.toLowerCase();
}

/** The trusted proxies (already validated by the configuration) as a BlockList to test addresses with. */
export function proxyList(trusted: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of trusted) {
    const named = NAMED_RANGES[entry];
    if (named) {
      for (const [network, prefix, type] of named) list.addSubnet(network, prefix, type);
      continue;
    }
    const [address = '', prefix] = entry.split('/');
    const type = isIPv4(address) ? 'ipv4' : 'ipv6';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return list;
}

/** What the caps have done, for metrics and benches. */
export interface ConnectionStats {
  /** Connections open now. */
  open(): number;
  /** Connections closed as they opened because their address held its share. */
  refusedPerAddress: number;
}

/**
 * Applies the caps to a Node server: the total through Node's own `maxConnections` (it
 * closes a connection past it at once), the share of one address here. Connections from
 * a trusted proxy count against the total only.
 */
export function capConnections(server: Server, limits: ConnectionLimits, trustedProxies: readonly string[]): ConnectionStats {
  server.maxConnections = limits.maxConnections;
  const proxies = proxyList(trustedProxies);
  const byAddress = new Map<string, number>();
  let open = 0;
  const stats: ConnectionStats = { open: () => open, refusedPerAddress: 0 };
  server.on('connection', (socket: Socket) => {
    const key = addressKey(socket);
    const proxied = key !== '' && proxies.check(key, isIPv4(key) ? 'ipv4' : 'ipv6');
    const held = byAddress.get(key) ?? 0;
    if (!proxied && held >= limits.maxConnectionsPerAddress) {
      stats.refusedPerAddress++;
      socket.destroy();
      return;
    }
    open++;
    byAddress.set(key, held + 1);
    socket.once('close', () => {
      open--;
      const left = (byAddress.get(key) ?? 1) - 1;
      if (left <= 0) byAddress.delete(key);
      else byAddress.set(key, left);
    });
  });
  return stats;
}
