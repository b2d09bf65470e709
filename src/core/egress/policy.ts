/**
 * The egress policy (API.md §10 "Outbound addresses"): which addresses org may connect to
 * when it calls a URL on a user's behalf. Public addresses are allowed; every other class
 * (loopback, private, link-local, …) is refused unless `--allow-egress` names it:
 *
 * - `loopback`: 127.0.0.0/8 and ::1 (containers and tools on the same machine);
 * - `private`: 10/8, 172.16/12, 192.168/16, 100.64/10 and fc00::/7 (a private network);
 * - an address (`10.1.2.3`, `fd12::5`): that address;
 * - a CIDR range (`10.1.0.0/16`, `fd12::/64`): the addresses in it.
 *
 * The cloud metadata addresses are allowed only when named as an address, and org never
 * calls its own listening port on this host (see {@link EgressPolicy.setSelf}).
 */
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import ipaddr from 'ipaddr.js';
import { invalid } from '../errors.js';
import { CLASS_WORDS, canonical, classify, effectiveAddress, parseAddress, type AddressClass, type IpAddress } from './addresses.js';

/** The names `--allow-egress` takes besides addresses and ranges. */
export const EGRESS_NAMES = ['loopback', 'private'] as const;

/** The classes each name allows. */
const NAMED: Readonly<Record<(typeof EGRESS_NAMES)[number], readonly AddressClass[]>> = {
  loopback: ['loopback'],
  private: ['private', 'shared', 'unique-local'],
};

/** Why an address is refused. */
export interface Refusal {
  /** The address, as connected to (IPv4-carrying IPv6 forms as their IPv4 address). */
  address: string;
  /** Its class, or `self` for this server's own port. */
  kind: AddressClass | 'self';
  /** What would allow it (`--allow-egress loopback`), or undefined when nothing does. */
  allowWith?: string;
}

/**
 * Checks `--allow-egress` values (or `ORG_EGRESS_ALLOW`): each comma-separated entry is
 * `loopback`, `private`, an IP address or a CIDR range. Returns the entries trimmed, in
 * order, without duplicates. Throws `invalid_request` naming `source` and the entry.
 *
 * @example
 * parseEgressAllow(['loopback, 10.0.0.0/8'], '--allow-egress') // → ['loopback', '10.0.0.0/8']
 */
export function parseEgressAllow(values: readonly string[], source: string): string[] {
  const out: string[] = [];
  for (const raw of values.flatMap((value) => value.split(','))) {
    const entry = raw.trim();
    if (entry === '') continue;
    if (!isEntry(entry)) {
      throw invalid(`${source}: "${entry}" is not ${EGRESS_NAMES.join(', ')}, an IP address or a CIDR range; for example loopback, 10.0.0.5 or 10.0.0.0/8`);
    }
    if (!out.includes(entry)) out.push(entry);
  }
  return out;
}

function isEntry(entry: string): boolean {
  if ((EGRESS_NAMES as readonly string[]).includes(entry)) return true;
  if (parseAddress(entry)) return true;
  const slash = entry.indexOf('/');
  return slash > 0 && parseAddress(entry.slice(0, slash)) !== undefined && ipaddr.isValidCIDR(entry);
}

/** A range of the policy, on the effective form of addresses. */
type Range = [IpAddress, number];

/** The allowed classes, addresses and ranges; decides for each address. */
export class EgressPolicy {
  private readonly classes = new Set<AddressClass>();
  private readonly addresses = new Set<string>();
  private readonly ranges: Range[] = [];
  private selfPort: number | undefined;
  private localAddresses: Set<string> | undefined;

  /** @param entries checked entries ({@link parseEgressAllow}) */
  constructor(readonly entries: readonly string[] = []) {
    for (const entry of entries) {
      if (entry === 'loopback' || entry === 'private') {
        for (const kind of NAMED[entry]) this.classes.add(kind);
        continue;
      }
      const address = parseAddress(entry);
      if (address) {
        this.addresses.add(canonical(effectiveAddress(address)));
        continue;
      }
      const [base, bits] = ipaddr.parseCIDR(entry);
      const effective = effectiveAddress(base);
      // An IPv4 range written in IPv6 (::ffff:10.0.0.0/104) is matched as IPv4.
      this.ranges.push(effective === base ? [base, bits] : [effective, Math.max(0, bits - 96)]);
    }
  }

  /**
   * This server's own listening port: connections to it on any address of this host are
   * refused whatever is allowed (org never calls itself for a user).
   */
  setSelf(port: number | undefined): void {
    this.selfPort = port;
    this.localAddresses = undefined;
  }

  /** Why a connection to `address` (an IP literal) and `port` is refused; undefined when it is allowed. */
  check(address: string, port?: number): Refusal | undefined {
    const parsed = parseAddress(address);
    if (!parsed) return { address, kind: 'reserved' };
    const effective = effectiveAddress(parsed);
    const text = canonical(effective);
    const kind = classify(effective);
    if (port !== undefined && port === this.selfPort && this.isLocal(kind, text)) return { address: text, kind: 'self' };
    if (this.addresses.has(text)) return undefined;
    if (kind === 'metadata') return { address: text, kind, allowWith: `--allow-egress ${text}` };
    if (kind === 'public') return undefined;
    if (this.classes.has(kind)) return undefined;
    if (this.ranges.some(([base, bits]) => base.kind() === effective.kind() && effective.match(base, bits))) return undefined;
    const name = (Object.keys(NAMED) as (keyof typeof NAMED)[]).find((candidate) => NAMED[candidate].includes(kind));
    return { address: text, kind, allowWith: `--allow-egress ${name ?? text}` };
  }

  /** True for an address of this host: loopback, unspecified, or one of its interfaces. */
  private isLocal(kind: AddressClass, text: string): boolean {
    if (kind === 'loopback' || kind === 'unspecified') return true;
    this.localAddresses ??= new Set(
      Object.values(networkInterfaces())
        .flatMap((list) => list ?? [])
        .map((entry) => {
          const parsed = parseAddress(entry.address);
          return parsed ? canonical(effectiveAddress(parsed)) : entry.address;
        }),
    );
    return this.localAddresses.has(text);
  }
}

/**
 * The message of a refusal, in the words of its place (`what` names the URL: "tool_url
 * http://127.1:8080/"), saying how an operator allows it.
 */
export function refusalMessage(what: string, refusal: Refusal, host?: string): string {
  const literal = host !== undefined && isIP(host) !== 0;
  const where = host && host !== refusal.address ? `${host} ${literal ? 'is' : 'resolves to'} ${refusal.address}, which` : refusal.address;
  if (refusal.kind === 'self') return `${what} is refused: ${where} is this server's own address and port, which org never calls`;
  const allow =
    refusal.kind === 'metadata'
      ? `; a metadata service is called only when named exactly: ${refusal.allowWith}`
      : refusal.allowWith
        ? `; the operator can allow it with ${refusal.allowWith} (ORG_EGRESS_ALLOW)`
        : '';
  return `${what} is refused by the egress policy: ${where} is ${CLASS_WORDS[refusal.kind]}${allow}`;
}
