/**
 * Who may make a node work from outside, on a real listening server, with real RFC 5322
 * messages: an e-mail starts a turn only when its From is an operator or owner of the
 * structure and (with ORG_INBOUND_AUTHSERV_ID) the relay's Authentication-Results records
 * a pass for the From domain; a spoofed, unauthenticated or non-member sender gets a 403
 * (nothing stored, nothing mailed), and the reply goes to the authenticated From, never to
 * a Reply-To. Signed inbound webhooks cannot be replayed: a repeated id, an old timestamp
 * and a signature of the body alone are refused.
 */
import { createHmac } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboundHeaders, orgSignature } from '../src/core/inbound/index.js';
import { ADMIN_TOKEN, startInstance, type TestInstance } from './helpers/instance.js';
import { outboxMails } from './helpers/outbox.js';
import { createWorkRuntime } from './helpers/work-runtime.js';

const SECRET = 'inbound-auth-secret-0123456789';
const DOMAIN = 'org.example.com';
const RELAY = 'mx.org.example.com';

/** A raw RFC 5322 message, with extra header lines on top (as a relay adds them). */
async function compose(options: Mail.Options, top: string[] = []): Promise<Buffer> {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  const { message } = (await transport.sendMail(options)) as { message: Buffer };
  return Buffer.concat([Buffer.from(top.map((line) => `${line}\n`).join('')), message]);
}

describe('inbound e-mail authenticates its sender', () => {
  let t: TestInstance;
  let structureId: string;
  let address: string;
  const outbox = () => join(t.home, '.org', 'outbox');
  const post = (raw: Buffer) => fetch(`${t.url}/api/org/inbound/email`, { method: 'POST', headers: { 'content-type': 'message/rfc822', ...inboundHeaders(SECRET, raw) }, body: raw });

  beforeAll(async () => {
    t = await startInstance({ listen: true, config: { inboundSecret: SECRET, inboundDomain: DOMAIN, inboundAuthservId: RELAY }, deps: { runtime: () => createWorkRuntime(2) } });
    const owner = await t.createUser('owner@acme.example');
    const structure = (await t.createStructure(owner.token, 'exec-team')) as unknown as { id: string };
    structureId = structure.id;
    address = `exec-cfo.${structureId}@${DOMAIN}`;
    for (const [email, role] of [['operator@acme.example', 'operator'], ['viewer@acme.example', 'viewer']] as const) {
      const user = await t.createUser(email);
      await t.app.members.set(structureId, user.id, role);
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  const pass = (domain: string) => `Authentication-Results: ${RELAY}; spf=pass smtp.mailfrom=bounce@${domain}; dkim=pass header.d=${domain} header.s=s1; dmarc=pass (p=reject) header.from=${domain}`;

  it('an operator writing from an authenticated address starts a turn, and the reply goes to that address, not to Reply-To', async () => {
    const raw = await compose({ from: 'Op <operator@acme.example>', replyTo: 'attacker@evil.example', to: address, subject: 'Numbers', text: 'send me the numbers' }, [pass('acme.example')]);
    const response = await post(raw);
    expect(response.status).toBe(202);
    const { run_id: runId } = (await response.json()) as { run_id: string };
    await t.app.chat.run(runId)!.done;
    await t.app.inbound.idle();
    const mails = await outboxMails(t.home);
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatch(/^To: operator@acme\.example$/m);
    expect(mails[0]).not.toContain('attacker@evil.example');
  });

  it.each([
    ['a viewer', 'viewer@acme.example', [pass('acme.example')]],
    ['someone who is no member', 'stranger@acme.example', [pass('acme.example')]],
    ['an operator spoofed with no Authentication-Results', 'operator@acme.example', []],
    ['an operator spoofed with DMARC failing', 'operator@acme.example', [`Authentication-Results: ${RELAY}; spf=fail smtp.mailfrom=x@evil.example; dkim=none; dmarc=fail header.from=acme.example`]],
    ['an operator spoofed with a pass for another domain', 'operator@acme.example', [`Authentication-Results: ${RELAY}; dkim=pass header.d=evil.example; spf=pass smtp.mailfrom=a@evil.example`]],
    ['an operator spoofed with a pass claimed by another server', 'operator@acme.example', [`Authentication-Results: mx.evil.example; dmarc=pass header.from=acme.example`]],
    ['an operator spoofed with a forged pass below the relay\'s own header', 'operator@acme.example', [`Authentication-Results: ${RELAY}; dmarc=fail header.from=acme.example`, pass('acme.example')]],
  ] as [string, string, string[]][])('%s is refused with 403, nothing stored or mailed', async (_who, from, top) => {
    const before = (await readdir(outbox()).catch(() => [])).length;
    const raw = await compose({ from, to: address, subject: 'Hi', text: 'do something for me' }, top);
    const response = await post(raw);
    expect(response.status).toBe(403);
    expect(((await response.json()) as { detail: string }).detail).toBe('the message was refused: its sender may not start work in this workspace by e-mail (an operator or owner, writing from an authenticated address)');
    const history = (await (await fetch(`${t.url}/api/org/chat/history?structure_id=${structureId}&role_id=exec-cfo&limit=50`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as { text: string }[];
    expect(history.map((message) => message.text)).not.toContain('do something for me');
    await t.app.inbound.idle();
    expect((await readdir(outbox()).catch(() => [])).length).toBe(before);
  });

  it('without ORG_INBOUND_AUTHSERV_ID the relay is trusted to have authenticated, and membership still decides', async () => {
    const open = await startInstance({ listen: true, config: { inboundSecret: SECRET, inboundDomain: DOMAIN }, deps: { runtime: () => createWorkRuntime(2) } });
    try {
      const owner = await open.createUser('owner@acme.example');
      const structure = (await open.createStructure(owner.token, 'exec-team')) as unknown as { id: string };
      const to = `exec-cfo.${structure.id}@${DOMAIN}`;
      const send = async (from: string) => {
        const raw = await compose({ from, to, subject: 'Hi', text: 'hello' });
        return (await fetch(`${open.url}/api/org/inbound/email`, { method: 'POST', headers: { 'content-type': 'message/rfc822', ...inboundHeaders(SECRET, raw) }, body: raw })).status;
      };
      expect(await send('owner@acme.example')).toBe(202);
      expect(await send('stranger@acme.example')).toBe(403);
    } finally {
      await open.close();
    }
  });
});

describe('inbound webhooks cannot be replayed', () => {
  let t: TestInstance;
  let body: string;
  beforeAll(async () => {
    t = await startInstance({ listen: true, config: { inboundSecret: SECRET }, deps: { runtime: () => createWorkRuntime(1) } });
    const structure = (await t.createStructure(ADMIN_TOKEN, 'exec-team')) as unknown as { id: string };
    body = JSON.stringify({ structure_id: structure.id, role_id: 'exec-cfo', text: 'pay the invoice', sender: 'chat-bot' });
  });
  afterAll(async () => {
    await t?.close();
  });
  const send = (headers: Record<string, string>) => fetch(`${t.url}/api/org/inbound/message`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

  it('the same signed request twice: accepted once, then 401', async () => {
    const headers = inboundHeaders(SECRET, body);
    expect((await send(headers)).status).toBe(202);
    const again = await send(headers);
    expect(again.status).toBe(401);
    expect(((await again.json()) as { detail: string }).detail).toMatch(/was already received: each message is accepted once/);
  });

  it('a timestamp more than 5 minutes away (before or after), a signature of the body alone, or a changed id: 401', async () => {
    const now = Math.floor(Date.now() / 1000);
    for (const timestampSeconds of [now - 301, now + 301]) {
      const stale = await send(inboundHeaders(SECRET, body, { timestampSeconds }));
      expect(stale.status).toBe(401);
      expect(((await stale.json()) as { detail: string }).detail).toMatch(/more than 5 minutes/);
    }
    const bodyOnly = await send({ 'x-org-signature': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}` });
    expect(bodyOnly.status).toBe(401);
    expect(((await bodyOnly.json()) as { detail: string }).detail).toMatch(/webhook-id and webhook-timestamp are required/);
    const signed = inboundHeaders(SECRET, body);
    expect((await send({ ...signed, 'webhook-id': `${signed['webhook-id']}-2` })).status).toBe(401);
  });

  it('X-Org-Signature over id, timestamp and body is accepted once, like the Standard Webhooks header', async () => {
    const id = `msg_hex_${Date.now()}`;
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'x-org-signature': orgSignature(SECRET, id, timestamp, body) };
    expect((await send(headers)).status).toBe(202);
    expect((await send(headers)).status).toBe(401);
  });
});
