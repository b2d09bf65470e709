/**
 * The optional SMTP listener (`org serve --smtp-port`): a mail server authenticating
 * with the inbound secret delivers to a node's address; the message goes through the
 * same inbound service (turn, threaded reply in the outbox). Unknown recipients are
 * refused at RCPT TO and a wrong password at AUTH.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpListener, type SmtpListener } from '../src/email/index.js';
import { startInstance, type TestInstance } from './helpers/instance.js';
import { createWorkRuntime } from './helpers/work-runtime.js';

const SECRET = 'smtp-secret-0123456789abcdef';

describe('inbound SMTP listener', () => {
  let t: TestInstance;
  let smtp: SmtpListener;
  let address: string;

  const transport = (pass = SECRET) =>
    nodemailer.createTransport({ host: '127.0.0.1', port: smtp.port, secure: false, ignoreTLS: true, auth: { user: 'mta', pass } });

  beforeAll(async () => {
    t = await startInstance({ listen: true, config: { inboundSecret: SECRET }, deps: { runtime: () => createWorkRuntime(5) } });
    const owner = await t.createUser('owner@example.com');
    const structure = await t.createStructure(owner.token, 'personal');
    // The sender is an operator: only operators and owners start work by mail.
    await t.app.members.set(structure.id, (await t.createUser('dave@example.com')).id, 'operator');
    address = `${structure.agents[0]!.role_id}.${structure.id}@localhost`;
    smtp = await startSmtpListener({
      host: '127.0.0.1',
      port: 0,
      secret: SECRET,
      name: 'localhost',
      sizeLimit: t.app.config.bodyLimit,
      inbound: t.app.inbound,
      log: t.app.log,
    });
  });
  afterAll(async () => {
    await smtp.close();
    await t.close();
  });

  it('delivers to a node: the turn runs and the threaded reply lands in the outbox', async () => {
    const sent = await transport().sendMail({ from: 'dave@example.com', to: address, subject: 'Weekly plan', text: 'plan my week', messageId: '<smtp-1@example.com>' });
    expect(sent.accepted).toEqual([address]);
    const outbox = join(t.home, '.org', 'outbox');
    // The server acknowledged the message once the turn was accepted: idle() waits for its reply.
    await t.app.inbound.idle();
    const file = (await readdir(outbox)).find((name) => name.endsWith('.eml'));
    expect(file).toBeDefined();
    const reply = await simpleParser(await readFile(join(outbox, file!)));
    expect(reply.inReplyTo).toBe('<smtp-1@example.com>');
    expect(reply.subject).toBe('Re: Weekly plan');
    expect(reply.attachments.map((attachment) => attachment.filename)).toEqual(['report.md']);
  });

  it('refuses unknown recipients and a wrong password', async () => {
    await expect(transport().sendMail({ from: 'dave@example.com', to: 'nobody@localhost', subject: 'x', text: 'x' })).rejects.toThrow(/550|no node/);
    await expect(transport('wrong-password').sendMail({ from: 'dave@example.com', to: address, subject: 'x', text: 'x' })).rejects.toThrow(/535|auth/i);
  });
});
