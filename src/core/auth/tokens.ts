/**
 * Bearer tokens: a kind prefix followed by 40 random base62 characters. Only the
 * SHA-256 hash of a token is ever stored; lookups hash the presented token and
 * compare hashes in constant time.
 */
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Prefixes of the token kinds of API.md §3 and §5. */
export const TOKEN_PREFIX = {
  user: 'org_u_',
  mcp: 'org_mcp_',
  invite: 'org_inv_',
  run: 'org_run_',
} as const;

export type TokenKind = keyof typeof TOKEN_PREFIX;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 40;

/** `length` uniformly random base62 characters (rejection sampling, no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** A fresh token of the given kind, e.g. `org_mcp_` + 40 base62 characters. */
export function mintToken(kind: TokenKind): string {
  return TOKEN_PREFIX[kind] + randomBase62(RANDOM_LENGTH);
}

/**
 * Hex SHA-256 of a token: the only form in which tokens are stored. Computed on every
 * authenticated request, so by the one-shot `crypto.hash` (a tenth of the cost of a
 * `Hash` object for a short input).
 */
export function hashToken(token: string): string {
  return hash('sha256', token, 'hex');
}

/** Compares two hex hashes in constant time. */
export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Compares a presented secret with a configured one in constant time (via their hashes). */
export function sameSecret(presented: string, expected: string): boolean {
  return sameHash(hashToken(presented), hashToken(expected));
}

/** True when `token` has the shape of a token of `kind`. */
export function looksLike(kind: TokenKind, token: string): boolean {
  const prefix = TOKEN_PREFIX[kind];
  return token.startsWith(prefix) && /^[0-9A-Za-z]{32,}$/.test(token.slice(prefix.length));
}
