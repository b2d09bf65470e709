/** Units of the inbound channels: signatures, routing addresses, quoted-reply stripping (e-mail reading is in src/email). */
import { describe, expect, it } from 'vitest';
import { nodeAddress, parseNodeAddress } from './address.js';
import { stripQuotedReply } from './quotes.js';
import { signBody, verifySignature } from './signature.js';

const SID = '3f0c9a4e-8b1d-4c2e-9f3a-5d6e7f8a9b0c';

describe('signature', () => {
  it('accepts exactly the HMAC-SHA256 of the body under the secret', () => {
    const header = signBody('secret-0123456789', '{"a":1}');
    expect(header).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verifySignature('secret-0123456789', Buffer.from('{"a":1}'), header)).toBe(true);
    expect(verifySignature('secret-0123456789', Buffer.from('{"a":1}'), header.toUpperCase().replace('SHA256', 'sha256'))).toBe(true);
    expect(verifySignature('secret-0123456789', '{"a":2}', header)).toBe(false);
    expect(verifySignature('other-secret-012345', '{"a":1}', header)).toBe(false);
    expect(verifySignature('secret-0123456789', '{"a":1}', undefined)).toBe(false);
    expect(verifySignature('secret-0123456789', '{"a":1}', header.slice(0, -2))).toBe(false);
    expect(verifySignature('secret-0123456789', '{"a":1}', header.replace('sha256=', ''))).toBe(false);
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
