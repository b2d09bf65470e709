/**
 * The one egress gate (DESIGN.md "One egress gate"): everything org fetches for a user —
 * container turns, skill `tool_url` calls, webhook deliveries — goes through the undici
 * dispatcher of an `EgressGate`. Its connector resolves the host name itself, checks
 * every address it resolves to against the policy, and connects to the checked address,
 * so nothing can change between the check and the connection (no DNS rebinding). undici's
 * `request` follows no redirects, and the gate adds no interceptor that would.
 *
 * The same check runs when a URL is registered (`container_url`, `tool_url`, webhook
 * URLs), so that a refused address is a 400 at once rather than a failure at run time.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Agent, Dispatcher, buildConnector } from 'undici';
import { OrgError } from '../errors.js';
import { loadUndici } from '../util/undici.js';
import type { EgressPolicy} from './policy.js';
import { refusalMessage, type Refusal } from './policy.js';

/** Resolves a host name to its addresses (all of them), like `dns.promises.lookup(name, {all: true})`. */
export type EgressLookup = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

/** The system resolver (getaddrinfo: /etc/hosts, then DNS), every address in its order. */
export const systemLookup: EgressLookup = (hostname) => dnsLookup(hostname, { all: true });

/** How long a registration waits for a name to resolve before accepting it (it is checked again at connect time). */
const REGISTRATION_LOOKUP_MS = 5000;

/** Connection errors after which the next resolved address is tried. */
const TRY_NEXT = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT']);

/** The error a refused connection fails with (its `code` is `ERR_EGRESS_REFUSED`). */
export class EgressRefusedError extends Error {
  readonly code = 'ERR_EGRESS_REFUSED';

  constructor(
    readonly refusal: Refusal,
    readonly host: string,
  ) {
    super(refusalMessage(`the connection to ${host}`, refusal, host));
    this.name = 'EgressRefusedError';
  }
}

/** The refusal of the gate that `error` is, or was caused by; undefined for any other failure. */
export function egressRefusalOf(error: unknown): EgressRefusedError | undefined {
  let current = error;
  for (let depth = 0; current instanceof Error && depth < 4; depth++) {
    if (current instanceof EgressRefusedError) return current;
    current = current.cause;
  }
  return undefined;
}

/** Options of the gate. */
export interface EgressGateOptions {
  /** The policy (`--allow-egress`). */
  policy: EgressPolicy;
  /** Resolves host names (default: the system resolver); tests inject their own names. */
  lookup?: EgressLookup;
}

/** The host of a URL as undici connects to it: brackets of IPv6 literals removed. */
function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/** The port a URL connects to. */
function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/** The gate: the policy, the registration check and the dispatcher every outbound call uses. */
export class EgressGate {
  readonly policy: EgressPolicy;
  private readonly lookup: EgressLookup;
  private agent: Promise<Agent> | undefined;

  constructor(options: EgressGateOptions) {
    this.policy = options.policy;
    this.lookup = options.lookup ?? systemLookup;
  }

  /**
   * The addresses to connect to for `host` and `port`, every one of them allowed; rejects
   * with an {@link EgressRefusedError} when any is refused (a name that resolves to both a
   * public and a private address is refused: it is either misconfigured or an attack).
   */
  async resolve(host: string, port: number): Promise<string[]> {
    const bare = bareHost(host);
    const addresses = isIP(bare) ? [bare] : (await this.lookup(bare)).map((entry) => entry.address);
    if (addresses.length === 0) throw Object.assign(new Error(`${bare} resolves to no address`), { code: 'ENOTFOUND' });
    for (const address of addresses) {
      const refusal = this.policy.check(address, port);
      if (refusal) throw new EgressRefusedError(refusal, bare);
    }
    return addresses;
  }

  /**
   * Why registering `url` is refused (its host is, or resolves to, a refused address);
   * undefined when it is allowed. A name that does not resolve (yet) is accepted: it is
   * checked again when it is called.
   */
  async refusalOf(url: URL): Promise<{ refusal: Refusal; host: string } | undefined> {
    const host = bareHost(url.hostname);
    const port = portOf(url);
    if (isIP(host)) {
      const refusal = this.policy.check(host, port);
      return refusal ? { refusal, host } : undefined;
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), REGISTRATION_LOOKUP_MS);
    });
    try {
      const found = await Promise.race([this.lookup(host).catch(() => undefined), timeout]);
      for (const { address } of found ?? []) {
        const refusal = this.policy.check(address, port);
        if (refusal) return { refusal, host };
      }
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Checks a URL being registered; throws 400 `egress_refused` naming `field` (the
   * member, e.g. `container_url`) when its address is refused.
   */
  async assertAllowed(value: string, field: string): Promise<void> {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return; // Not a URL: the field's own validation says so.
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return;
    const found = await this.refusalOf(url);
    if (!found) return;
    const message = refusalMessage(`${field} ${url.origin}`, found.refusal, found.host);
    throw new OrgError('egress_refused', message, { errors: [{ path: field, message }] });
  }

  /** The dispatcher of every outbound call for a user (undici is loaded on first use). */
  dispatcher(): Promise<Dispatcher> {
    this.agent ??= loadUndici().then((undici) => new undici.Agent({ connect: this.connector(undici.buildConnector({})) }));
    return this.agent;
  }

  /** Closes the dispatcher's connections. */
  async close(): Promise<void> {
    const agent = this.agent;
    this.agent = undefined;
    if (agent) await (await agent).close();
  }

  /** undici's connector, connecting only to addresses the policy allows (resolved here, once). */
  private connector(base: buildConnector.connector): buildConnector.connector {
    return (options, callback) => {
      const port = Number(options.port) || (options.protocol === 'https:' ? 443 : 80);
      this.resolve(options.hostname, port).then(
        (addresses) => {
          const attempt = (index: number): void => {
            // The name stays the TLS server name (SNI and certificate check): only the address is fixed.
            const servername = options.servername ?? (isIP(bareHost(options.hostname)) ? undefined : bareHost(options.hostname));
            base({ ...options, hostname: addresses[index]!, ...(servername ? { servername } : {}) }, (error: Error | null, socket: Socket | TLSSocket | null) => {
              if (error) {
                const code = (error as { code?: string }).code;
                if (index + 1 < addresses.length && code && TRY_NEXT.has(code)) return attempt(index + 1);
                return callback(error, null);
              }
              callback(null, socket!);
            });
          };
          attempt(0);
        },
        (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), null),
      );
    };
  }
}
