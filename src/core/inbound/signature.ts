/**
 * The signature of the inbound webhooks, in the Standard Webhooks scheme: the sender
 * signs `<webhook-id>.<webhook-timestamp>.<raw body>` with HMAC-SHA256 keyed with
 * ORG_INBOUND_SECRET and sends
 *
 *   webhook-id: <a unique id per message>
 *   webhook-timestamp: <seconds since the epoch>
 *   webhook-signature: v1,<base64 signature>   (several, space separated, while keys rotate)
 *
 * A signature over the body alone could be replayed forever; this one names its moment
 * and its id, so a request older (or newer) than {@link INBOUND_TOLERANCE_S} is refused,
 * and one whose id was already taken is refused by the replay guard.
 *
 * The key: a secret written `whsec_<base64>` (as Standard Webhooks libraries generate) is
 * the decoded bytes, any other secret its UTF-8 bytes (a library's `raw` format).
 *
 * `X-Org-Signature: sha256=<hex>` (API.md §7) is still accepted, as the hex HMAC of the
 * same `<id>.<timestamp>.<body>` text and with the same two headers: a signature of the
 * body alone is refused.
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';

/** How far a request's timestamp may be from the server's clock, in seconds (5 minutes). */
export const INBOUND_TOLERANCE_S = 300;

/** The header carrying the hex form of the signature (lower case, as Node exposes headers). */
export const SIGNATURE_HEADER = 'x-org-signature';

const HEX_SIGNATURE = /^sha256=([0-9a-fA-F]{64})$/;
const STANDARD_PREFIX = 'whsec_';

function keyOf(secret: string): Buffer {
  return secret.startsWith(STANDARD_PREFIX) ? Buffer.from(secret.slice(STANDARD_PREFIX.length), 'base64') : Buffer.from(secret, 'utf8');
}

function mac(secret: string, id: string, timestamp: string, body: Buffer | string): Buffer {
  return createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.`).update(body).digest();
}

/**
 * The headers that sign `body` (a sender's side; the tests and scripts use it).
 *
 * @example
 * fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...inboundHeaders(secret, body) }, body })
 */
export function inboundHeaders(secret: string, body: Buffer | string, options: { id?: string; timestampSeconds?: number } = {}): Record<string, string> {
  const id = options.id ?? `msg_${randomUUID().replace(/-/g, '')}`;
  const timestamp = String(options.timestampSeconds ?? Math.floor(Date.now() / 1000));
  const signature = mac(secret, id, timestamp, body);
  return {
    'webhook-id': id,
    'webhook-timestamp': timestamp,
    'webhook-signature': `v1,${signature.toString('base64')}`,
  };
}

/** The hex `X-Org-Signature` of the same signed text. */
export function orgSignature(secret: string, id: string, timestampSeconds: number, body: Buffer | string): string {
  return `sha256=${mac(secret, id, String(timestampSeconds), body).toString('hex')}`;
}

/** The headers a check reads. */
export interface SignedHeaders {
  'webhook-id'?: string;
  'webhook-timestamp'?: string;
  'webhook-signature'?: string;
  'x-org-signature'?: string;
}

/** What the check found: the message's id, or why it is refused (for a 401). */
export type SignatureCheck = { ok: true; id: string; timestampSeconds: number } | { ok: false; message: string };

function equal(given: Buffer, expected: Buffer): boolean {
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Checks the signature and the timestamp of a request (not its id's freshness: see the replay guard). */
export function verifyInbound(secret: string, headers: SignedHeaders, body: Buffer | string, nowSeconds: number): SignatureCheck {
  const id = headers['webhook-id']?.trim();
  const timestamp = headers['webhook-timestamp']?.trim();
  const standard = headers['webhook-signature'];
  const hex = headers['x-org-signature'];
  if (standard === undefined && hex === undefined) {
    return { ok: false, message: 'the request is not signed: send webhook-id, webhook-timestamp and webhook-signature (v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">, keyed with the inbound secret)' };
  }
  if (!id || !timestamp) {
    return { ok: false, message: 'webhook-id and webhook-timestamp are required with the signature, which covers "<id>.<timestamp>.<body>" (a signature of the body alone could be replayed)' };
  }
  if (id.length > 256) return { ok: false, message: 'webhook-id must be at most 256 characters' };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, message: 'webhook-timestamp must be whole seconds since the epoch' };
  const seconds = Number(timestamp);
  if (Math.abs(nowSeconds - seconds) > INBOUND_TOLERANCE_S) {
    return { ok: false, message: `webhook-timestamp is more than ${INBOUND_TOLERANCE_S / 60} minutes from the server's clock: sign each request when it is sent` };
  }
  const expected = mac(secret, id, timestamp, body);
  const matches =
    (standard ?? '')
      .split(' ')
      .filter((part) => part.startsWith('v1,'))
      .some((part) => equal(Buffer.from(part.slice(3), 'base64'), expected)) ||
    (hex !== undefined && HEX_SIGNATURE.test(hex.trim()) && equal(Buffer.from(HEX_SIGNATURE.exec(hex.trim())![1]!, 'hex'), expected));
  if (!matches) return { ok: false, message: 'the signature does not match the request (HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>" keyed with the inbound secret)' };
  return { ok: true, id, timestampSeconds: seconds };
}
