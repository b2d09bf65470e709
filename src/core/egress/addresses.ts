/**
 * What kind of address an IP address is, for the egress policy: the public internet, or
 * one of the ranges a server must not call for its users (its own loopback, the private
 * networks around it, link-local and the cloud metadata services, …). Parsing and range
 * tables are ipaddr.js's; this file decides which of its ranges fall in which class and
 * looks through the IPv6 forms that carry an IPv4 address (mapped, translated,
 * compatible, NAT64), so that `::ffff:127.0.0.1` is as much loopback as `127.0.0.1`.
 */
import ipaddr from 'ipaddr.js';

/** The classes of addresses the policy tells apart. */
export type AddressClass =
  /** A global unicast address: allowed. */
  | 'public'
  /** 127.0.0.0/8, ::1: this host. */
  | 'loopback'
  /** 0.0.0.0/8, ::: "this host" again on most systems when used as a destination. */
  | 'unspecified'
  /** 10/8, 172.16/12, 192.168/16 (RFC 1918). */
  | 'private'
  /** 100.64.0.0/10 (RFC 6598, carrier-grade NAT; also used by overlay networks). */
  | 'shared'
  /** fc00::/7 (RFC 4193). */
  | 'unique-local'
  /** 169.254.0.0/16, fe80::/10. */
  | 'link-local'
  /** 224.0.0.0/4, ff00::/8. */
  | 'multicast'
  /** 255.255.255.255. */
  | 'broadcast'
  /** Documentation, benchmarking, future use, tunnels and the other special ranges. */
  | 'reserved'
  /** A cloud provider's instance metadata service (see {@link METADATA_ADDRESSES}). */
  | 'metadata';

/**
 * The instance metadata services of the major clouds. They hand out the credentials of
 * the machine org runs on, so the policy calls them only when one is named exactly as an
 * address: no class (`private`) or range (`169.254.0.0/16`) lets them through.
 *
 * 169.254.169.254: AWS, GCP, Azure, Oracle, DigitalOcean, OpenStack; 169.254.170.2: AWS
 * ECS task credentials; 169.254.170.23 and fd00:ec2::23: EKS pod identity; fd00:ec2::254:
 * AWS over IPv6; 100.100.100.200: Alibaba Cloud.
 */
export const METADATA_ADDRESSES: readonly string[] = ['169.254.169.254', '169.254.170.2', '169.254.170.23', '100.100.100.200', 'fd00:ec2::254', 'fd00:ec2::23'];

/** A parsed address (IPv4-carrying IPv6 forms already reduced to their IPv4 address). */
export type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;

const METADATA = new Set(METADATA_ADDRESSES.map((address) => canonical(ipaddr.parse(address))));

/** The text of an address in one spelling per address (IPv4 dotted, IPv6 RFC 5952). */
export function canonical(address: IpAddress): string {
  return address.kind() === 'ipv6' ? (address as ipaddr.IPv6).toRFC5952String() : address.toString();
}

/** The IPv4 address in the last 32 bits of an IPv6 address. */
function lastIPv4(address: ipaddr.IPv6): ipaddr.IPv4 {
  const [high, low] = address.parts.slice(6) as [number, number];
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/**
 * The address that a connection to `address` really reaches, as far as the policy is
 * concerned: an IPv4-mapped (`::ffff:a.b.c.d`), IPv4-translated (`::ffff:0:a.b.c.d`),
 * IPv4-compatible (`::a.b.c.d`) or well-known NAT64 (`64:ff9b::a.b.c.d`) IPv6 address is
 * its IPv4 address.
 */
export function effectiveAddress(address: IpAddress): IpAddress {
  if (address.kind() === 'ipv4') return address;
  const v6 = address as ipaddr.IPv6;
  const range = v6.range();
  if (range === 'ipv4Mapped' || range === 'rfc6145') return lastIPv4(v6);
  const [a, b, c, d, e, f] = v6.parts;
  // 64:ff9b::/96, the well-known NAT64 prefix (RFC 6052); its local-use /48 stays reserved.
  if (a === 0x64 && b === 0xff9b && c === 0 && d === 0 && e === 0 && f === 0) return lastIPv4(v6);
  // ::a.b.c.d (deprecated IPv4-compatible), but not :: and ::1 themselves.
  if (a === 0 && b === 0 && c === 0 && d === 0 && e === 0 && f === 0 && (v6.parts[6] !== 0 || v6.parts[7]! > 1)) return lastIPv4(v6);
  return v6;
}

/** Parses an IP address literal (brackets allowed); undefined when it is not one. */
export function parseAddress(text: string): IpAddress | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  // Only the standard spellings here: URLs are normalised by the URL parser first, and a
  // policy entry is written as an address (isValid would also take `127.1` or `0x7f.1`).
  if (!ipaddr.IPv4.isValidFourPartDecimal(bare) && !ipaddr.IPv6.isValid(bare)) return undefined;
  const parsed = ipaddr.parse(bare);
  return parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).zoneId !== undefined ? undefined : parsed;
}

/** The class of an address (after {@link effectiveAddress}). */
export function classify(address: IpAddress): AddressClass {
  const target = effectiveAddress(address);
  if (METADATA.has(canonical(target))) return 'metadata';
  if (target.kind() === 'ipv4') {
    switch ((target as ipaddr.IPv4).range()) {
      case 'unicast':
        return 'public';
      case 'loopback':
        return 'loopback';
      case 'unspecified':
        return 'unspecified';
      case 'private':
        return 'private';
      case 'carrierGradeNat':
        return 'shared';
      case 'linkLocal':
        return 'link-local';
      case 'multicast':
        return 'multicast';
      case 'broadcast':
        return 'broadcast';
      default:
        return 'reserved';
    }
  }
  switch ((target as ipaddr.IPv6).range()) {
    case 'unicast':
      return 'public';
    case 'loopback':
      return 'loopback';
    case 'unspecified':
      return 'unspecified';
    case 'uniqueLocal':
      return 'unique-local';
    case 'linkLocal':
      return 'link-local';
    case 'multicast':
      return 'multicast';
    default:
      // 6to4 and Teredo tunnels, the NAT64 local-use prefix, documentation, discard, ORCHID…
      return 'reserved';
  }
}

/** How the class of an address is said in a message ("a loopback address"). */
export const CLASS_WORDS: Readonly<Record<AddressClass, string>> = {
  public: 'a public address',
  loopback: 'a loopback address (this host)',
  unspecified: 'the unspecified address (this host)',
  private: 'a private network address',
  shared: 'a shared (carrier-grade NAT) address',
  'unique-local': 'a unique-local (private) IPv6 address',
  'link-local': 'a link-local address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  reserved: 'a reserved or special-purpose address',
  metadata: 'a cloud metadata service address',
};
