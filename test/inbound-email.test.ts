/**
 * Inbound e-mail (API.md §7) over a real listening server: the signature (missing, bad,
 * for another body → 401), disabled without a secret (503), routing by address
 * (unknown → 404), and a multipart e-mail with an attachment → 202 → the turn runs with
 * the attachment staged and the quoted history stripped → a threaded reply in the outbox
 * `.eml` with the artifact attached, addressed to the sender.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboundHeaders } from '../src/core/inbound/index.js';
import { startInstance, type TestInstance } from './helpers/instance.js';
import { createWorkRuntime } from './helpers/work-runtime.js';

const SECRET = 'inbound-secret-0123456789abcdef';
const DOMAIN = 'org.example.com';

/** Builds a raw RFC 5322 message with nodemailer. */
async function compose(options: Mail.Options): Promise<Buffer> {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  const info = (await transport.sendMail(options)) as { message: Buffer };
  return info.message;
}

describe('inbound e-mail', () => {
  let t: TestInstance;
  let owner: { token: string; id: string };
  let structure: { id: string; agents: { id: string; role_id: string }[] };
  let roleId: string;
  let address: string;

  const post = (body: Buffer | string, headers: Record<string, string>) =>
    fetch(`${t.url}/api/org/inbound/email`, { method: 'POST', headers: { 'content-type': 'message/rfc822', ...headers }, body });
  const signed = (body: Buffer) => post(body, { ...inboundHeaders(SECRET, body) });
  const outbox = () => join(t.home, '.org', 'outbox');

  beforeAll(async () => {
    t = await startInstance({ listen: true, config: { inboundSecret: SECRET, inboundDomain: DOMAIN }, deps: { runtime: () => createWorkRuntime(5) } });
    owner = await t.createUser('owner@example.com');
    structure = await t.createStructure(owner.token, 'exec-team');
    roleId = structure.agents[1]!.role_id;
    address = `${roleId}.${structure.id}@${DOMAIN}`;
    // The senders of these messages are operators of the structure: only they (and owners) start work by mail.
    for (const email of ['alice@example.com', 'carol@example.com']) await t.app.members.set(structure.id, (await t.createUser(email)).id, 'operator');
  });
  afterAll(async () => {
    await t.close();
  });

  it('401 without a signature, with a bad one, or with one made for another body', async () => {
    const raw = await compose({ from: 'alice@example.com', to: address, subject: 'Hi', text: 'hello' });
    const missing = await post(raw, {});
    expect(missing.status).toBe(401);
    expect(missing.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await missing.json()).toMatchObject({ status: 401, code: 'unauthorized', detail: expect.stringContaining('webhook-signature') });

    expect((await post(raw, { 'x-org-signature': 'sha256=deadbeef' })).status).toBe(401);
    expect((await post(raw, { ...inboundHeaders('another-secret-0123456789', raw) })).status).toBe(401);
    expect((await post(raw, { ...inboundHeaders(SECRET, Buffer.concat([raw, Buffer.from('x')])) })).status).toBe(401);
    const signed = inboundHeaders(SECRET, raw);
    expect((await post(raw, { ...signed, 'webhook-signature': signed['webhook-signature']!.replace('v1,', 'v2,') })).status).toBe(401);
    expect(await readdir(outbox())).toEqual([]);
  });

  it('404 for an address that names no node, or no node address at all', async () => {
    const strangers = [
      `${roleId}.00000000-0000-4000-8000-000000000000@${DOMAIN}`,
      `nobody-here.${structure.id}@${DOMAIN}`,
      `${roleId}.${structure.id}@elsewhere.example.com`,
      'someone@example.com',
    ];
    for (const to of strangers) {
      const raw = await compose({ from: 'alice@example.com', to, subject: 'Hi', text: 'hello' });
      const response = await signed(raw);
      expect(response.status, to).toBe(404);
      expect(await response.json()).toMatchObject({ code: 'not_found' });
    }
  });

  it('415 for a body that is not message/rfc822; 400 for an empty message', async () => {
    const json = Buffer.from(JSON.stringify({ text: 'hi' }));
    const wrong = await fetch(`${t.url}/api/org/inbound/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...inboundHeaders(SECRET, json) },
      body: json,
    });
    expect(wrong.status).toBe(415);
    const empty = Buffer.alloc(0);
    expect((await post(empty, { ...inboundHeaders(SECRET, empty) })).status).toBe(400);
  });

  it('a multipart e-mail with an attachment: 202, the turn runs, the threaded reply with the artifact goes to the sender', async () => {
    const raw = await compose({
      from: 'Alice Doe <alice@example.com>',
      to: `Finance <${address}>`,
      cc: 'bob@example.com',
      subject: 'Cash report',
      messageId: '<inbound-1@mail.example.com>',
      references: ['<earlier-0@mail.example.com>'],
      text: 'Please prepare the cash report from the attached aging.\n\nOn Mon, 2 Nov 2026 at 09:00, Bob <bob@example.com> wrote:\n> the old thread\n> more of it\n',
      attachments: [{ filename: 'aging.csv', content: 'customer,days\nacme,45\n', contentType: 'text/csv' }],
    });
    const response = await signed(raw);
    expect(response.status).toBe(202);
    const { run_id } = (await response.json()) as { run_id: string };
    expect(run_id).toMatch(/^[0-9a-f-]{36}$/);

    // The 202 came after the turn was accepted: idle() waits for its reply to be written.
    await t.app.inbound.idle();
    const file = (await readdir(outbox())).find((name) => name.endsWith('.eml'))!;
    const reply = await simpleParser(await readFile(join(outbox(), file)));
    expect(reply.to && !Array.isArray(reply.to) ? reply.to.value.map((entry) => entry.address) : []).toEqual(['alice@example.com']);
    expect(reply.subject).toBe('Re: Cash report');
    expect(reply.inReplyTo).toBe('<inbound-1@mail.example.com>');
    expect(reply.references).toEqual(['<earlier-0@mail.example.com>', '<inbound-1@mail.example.com>']);
    expect(reply.replyTo?.value[0]?.address).toBe(address);
    expect(reply.text).toContain('Done: Please prepare the cash report from the attached aging.');
    expect(reply.attachments.map((attachment) => attachment.filename)).toEqual(['report.md']);
    const report = reply.attachments[0]!.content.toString('utf8');
    expect(report).toContain('aging.csv: customer,days');
    expect(report).not.toContain('the old thread');

    // The user message: the new text only, the attachment staged, the sender noted.
    const history = await t.server.inject({
      method: 'GET',
      url: `/api/org/chat/history?structure_id=${structure.id}&role_id=${roleId}&limit=2`,
      headers: t.auth(owner.token),
    });
    const [agent, user] = history.json<{ sender: string; text: string; origin?: string; attachments: { name: string }[]; status: string; run_id: string }[]>();
    expect(user).toMatchObject({
      sender: 'user',
      run_id,
      text: 'Please prepare the cash report from the attached aging.',
      origin: 'email:alice@example.com',
      author: { kind: 'email', id: 'alice@example.com', label: 'alice@example.com' },
      attachments: [{ name: 'aging.csv', content_type: 'text/csv', size: 22 }],
    });
    expect(agent).toMatchObject({ sender: 'agent', run_id, status: 'complete', artifacts: ['report.md'] });
  });

  it('a turn that fails still gets a threaded reply saying so', async () => {
    const before = new Set(await readdir(outbox()));
    const raw = await compose({ from: 'carol@example.com', to: address, subject: 'Re: Something', messageId: '<inbound-2@mail.example.com>', text: 'make it fail' });
    expect((await signed(raw)).status).toBe(202);
    await t.app.inbound.idle();
    const file = (await readdir(outbox())).find((name) => name.endsWith('.eml') && !before.has(name))!;
    const reply = await simpleParser(await readFile(join(outbox(), file)));
    expect(reply.subject).toBe('Re: Something');
    expect(reply.inReplyTo).toBe('<inbound-2@mail.example.com>');
    expect(reply.text).toContain('The agent could not finish: the tool broke');
    expect(reply.attachments).toEqual([]);
  });

  it('503 while no inbound secret is configured', async () => {
    const other = await startInstance({ listen: true });
    try {
      const raw = await compose({ from: 'alice@example.com', to: address, subject: 'Hi', text: 'hello' });
      const response = await fetch(`${other.url}/api/org/inbound/email`, {
        method: 'POST',
        headers: { 'content-type': 'message/rfc822', ...inboundHeaders(SECRET, raw) },
        body: raw,
      });
      expect(response.status).toBe(503);
      expect(await response.json()).toMatchObject({ code: 'unavailable' });
    } finally {
      await other.close();
    }
  });
});
