/**
 * The webhook signature of the inbound channels: `X-Org-Signature: sha256=<hex>`, the
 * HMAC-SHA256 of the raw request body keyed with ORG_INBOUND_SECRET, compared in
 * constant time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header carrying the signature (lower case, as Node exposes headers). */
export const SIGNATURE_HEADER = 'x-org-signature';

const SIGNATURE = /^sha256=([0-9a-fA-F]{64})$/;

/**
 * The header value for `body` signed with `secret`.
 *
 * @example
 * signBody('s3cret', '{"text":"hi"}') // 'sha256=5f1c…'
 */
export function signBody(secret: string, body: Buffer | string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** True when `header` is the signature of `body` under `secret` (constant-time comparison). */
export function verifySignature(secret: string, body: Buffer | string, header: string | undefined): boolean {
  const match = header === undefined ? null : SIGNATURE.exec(header.trim());
  if (!match?.[1]) return false;
  const given = Buffer.from(match[1], 'hex');
  const expected = createHmac('sha256', secret).update(body).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}
