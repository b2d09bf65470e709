/**
 * The reverse proxies whose `X-Forwarded-For` (and `-Proto`, `-Host`) an instance believes
 * (`--trust-proxy`, `ORG_TRUST_PROXY`). Behind nginx or a load balancer every connection
 * comes from the proxy; without this setting the per-address rate limit of requests
 * without a token would be one bucket for everybody, and the audit log would record the
 * proxy's address for every action. Only the listed addresses are believed: a client
 * that reaches the instance directly cannot choose the address it is recorded under.
 */
import { isIP } from 'node:net';
import { invalid } from './errors.js';

/** The address ranges Fastify (`proxy-addr`) knows by name. */
const NAMED_RANGES = ['loopback', 'linklocal', 'uniquelocal'] as const;

/**
 * Checks a list of trusted proxies: addresses (`10.0.0.5`, `::1`), CIDR ranges
 * (`10.0.0.0/8`, `fd00::/8`) or the names `loopback`, `linklocal`, `uniquelocal`,
 * comma-separated in one or several values. Returns them trimmed, in order.
 *
 * @example
 * parseTrustedProxies(['127.0.0.1, 10.0.0.0/8'], '--trust-proxy') // → ['127.0.0.1', '10.0.0.0/8']
 */
export function parseTrustedProxies(values: readonly string[], source: string): string[] {
  const out: string[] = [];
  for (const raw of values.flatMap((value) => value.split(','))) {
    const entry = raw.trim();
    if (entry === '') continue;
    if (!isTrustEntry(entry)) {
      throw invalid(
        `${source}: "${entry}" is not an address, a CIDR range or one of ${NAMED_RANGES.join(', ')}; for example 127.0.0.1, 10.0.0.0/8 or loopback`,
      );
    }
    out.push(entry);
  }
  return out;
}

function isTrustEntry(entry: string): boolean {
  if ((NAMED_RANGES as readonly string[]).includes(entry)) return true;
  const slash = entry.indexOf('/');
  if (slash < 0) return isIP(entry) !== 0;
  const family = isIP(entry.slice(0, slash));
  const bits = entry.slice(slash + 1);
  if (family === 0 || !/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}
