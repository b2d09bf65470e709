/** Units of the inbound channels: signatures, routing addresses, quoted-reply stripping (e-mail reading is in src/email). */
import { describe, expect, it } from 'vitest';
import { nodeAddress, parseNodeAddress } from './address.js';
import { stripQuotedReply } from './quotes.js';
import { Webhook } from 'standardwebhooks';
import { MemoryReplayGuard } from './replay-guard.js';
import { inboundHeaders, orgSignature, verifyInbound } from './signature.js';

const SID = '3f0c9a4e-8b1d-4c2e-9f3a-5d6e7f8a9b0c';

describe('signature', () => {
  const secret = 'secret-0123456789';
  const now = 1_900_000_000;

  it('accepts the Standard Webhooks signature of id, timestamp and body, as the reference library makes it', () => {
    const body = '{"a":1}';
    const signature = new Webhook(secret, { format: 'raw' }).sign('msg_1', new Date(now * 1000), body);
    expect(verifyInbound(secret, { 'webhook-id': 'msg_1', 'webhook-timestamp': String(now), 'webhook-signature': signature }, Buffer.from(body), now)).toEqual({ ok: true, id: 'msg_1', timestampSeconds: now });
    // Ours verify with the reference library too, whsec_ secrets included.
    const standard = `whsec_${Buffer.from('k'.repeat(32)).toString('base64')}`;
    const headers = inboundHeaders(standard, body, { id: 'msg_2', timestampSeconds: now });
    expect(() => new Webhook(standard).verify(body, inboundHeaders(standard, body, { id: 'msg_2' }))).not.toThrow();
    expect(verifyInbound(standard, headers, body, now)).toMatchObject({ ok: true });
  });

  it('refuses another body, secret, id or time, a body-only signature, and a timestamp over 5 minutes away', () => {
    const body = '{"a":1}';
    const headers = inboundHeaders(secret, body, { id: 'msg_1', timestampSeconds: now });
    expect(verifyInbound(secret, headers, '{"a":2}', now)).toMatchObject({ ok: false });
    expect(verifyInbound('other-secret-012345', headers, body, now)).toMatchObject({ ok: false });
    expect(verifyInbound(secret, { ...headers, 'webhook-id': 'msg_9' }, body, now)).toMatchObject({ ok: false });
    expect(verifyInbound(secret, headers, body, now + 301)).toMatchObject({ ok: false, message: expect.stringMatching(/more than 5 minutes/) });
    expect(verifyInbound(secret, headers, body, now - 301)).toMatchObject({ ok: false });
    expect(verifyInbound(secret, headers, body, now + 300)).toMatchObject({ ok: true });
    expect(verifyInbound(secret, { 'webhook-signature': headers['webhook-signature']! }, body, now)).toMatchObject({ ok: false, message: expect.stringMatching(/webhook-id and webhook-timestamp are required/) });
    expect(verifyInbound(secret, {}, body, now)).toMatchObject({ ok: false, message: expect.stringMatching(/not signed/) });
  });

  it('accepts X-Org-Signature as the hex of the same HMAC, with the id and timestamp, never over the body alone', () => {
    const body = '{"a":1}';
    const hex = orgSignature(secret, 'msg_1', now, body);
    expect(verifyInbound(secret, { 'webhook-id': 'msg_1', 'webhook-timestamp': String(now), 'x-org-signature': hex }, body, now)).toMatchObject({ ok: true });
    expect(verifyInbound(secret, { 'x-org-signature': hex }, body, now)).toMatchObject({ ok: false });
  });

  it('takes an id once within the window, and forgets it after', async () => {
    const guard = new MemoryReplayGuard(3, 600_000);
    expect(await guard.claim('a', 0)).toBe(true);
    expect(await guard.claim('a', 1000)).toBe(false);
    expect(await guard.claim('a', 600_001)).toBe(true);
    for (const id of ['b', 'c', 'd']) expect(await guard.claim(id, 600_002)).toBe(true);
    // Past its bound the oldest goes first.
    expect(await guard.claim('a', 600_003)).toBe(true);
  });
});

describe('node addresses', () => {
  it('round-trips and ignores letter case', () => {
    const address = nodeAddress('exec-ceo', SID, 'org.example.com');
    expect(address).toBe(`exec-ceo.${SID}@org.example.com`);
    expect(parseNodeAddress(address, 'org.example.com')).toEqual({ roleId: 'exec-ceo', structureId: SID });
    expect(parseNodeAddress(`<${address.toUpperCase()}>`, 'ORG.example.com')).toEqual({ roleId: 'exec-ceo', structureId: SID });
  });

  it('rejects other shapes', () => {
    for (const bad of [`exec-ceo.${SID}@elsewhere.com`, `ceo.${SID}@org.example.com`, 'exec-ceo.not-a-uuid@org.example.com', `exec-ceo${SID}@org.example.com`, 'alice@org.example.com', '']) {
      expect(parseNodeAddress(bad, 'org.example.com'), bad).toBeUndefined();
    }
  });
});

describe('stripQuotedReply', () => {
  it('cuts at "On … wrote:" (also wrapped), drops > lines and the signature', () => {
    expect(stripQuotedReply('Yes, go ahead.\n\nOn Mon, 2 Nov 2026, Bob <b@x.com> wrote:\n> Shall I?\n')).toBe('Yes, go ahead.');
    expect(stripQuotedReply('Fine.\r\n\r\nOn Mon, 2 Nov 2026 at 09:00, Bob Smith\r\n<b@x.com> wrote:\r\n> old\r\n')).toBe('Fine.');
    expect(stripQuotedReply('Top\n> quoted\nbottom')).toBe('Top\nbottom');
    expect(stripQuotedReply('Thanks\n-- \nAlice\nCEO')).toBe('Thanks');
  });

  it('cuts at Outlook and "Original Message" markers', () => {
    expect(stripQuotedReply('Approved.\n\n-----Original Message-----\nFrom: Bob\nplease approve')).toBe('Approved.');
    expect(stripQuotedReply('Approved.\n\nFrom: Bob <b@x.com>\nSent: Monday\nTo: Alice\n\nplease approve')).toBe('Approved.');
    expect(stripQuotedReply('Approved.\n________________________________\nFrom: Bob')).toBe('Approved.');
  });

  it('keeps ordinary text, including lines that merely start with "On"', () => {
    expect(stripQuotedReply('On Monday we ship.\nFrom here on, faster.')).toBe('On Monday we ship.\nFrom here on, faster.');
  });
});
