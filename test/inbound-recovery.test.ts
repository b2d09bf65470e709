/**
 * An e-mail whose turn is cut short by a crash is still answered: the reply owed is
 * journaled when the e-mail is accepted, and the next process mails it (threaded, with
 * the "interrupted by restart" outcome) after the chat engine's recovery — once.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../src/app.js';
import { resolveConfig } from '../src/core/config.js';
import type { Mailer, MailMessage } from '../src/core/mail/index.js';
import type { AgentRuntime } from '../src/core/runtimes/index.js';
import { ADMIN_TOKEN } from './helpers/instance.js';

function memoryMailer(): Mailer & { sent: MailMessage[] } {
  const sent: MailMessage[] = [];
  return {
    sent,
    async send(message) {
      sent.push(message);
      return { messageId: `<${sent.length}@test>` };
    },
    async close() {},
  };
}

describe('inbound replies across a restart', () => {
  const apps: App[] = [];
  let home = '';
  afterAll(async () => {
    for (const app of apps) await app.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('mails the reply a crashed process owed, threaded, exactly once', async () => {
    home = await mkdtemp(join(tmpdir(), 'org-inbound-recover-'));
    const config = {
      ...resolveConfig({ home, port: 0, demo: false }, { ORG_ADMIN_TOKEN: ADMIN_TOKEN, ORG_CONFIG_DIR: join(home, 'config') }),
      watchSkills: false,
      shutdownGraceMs: 50,
      inboundDomain: 'org.example.com',
    };
    let markStarted!: () => void;
    const started = new Promise<void>((resolve) => (markStarted = resolve));
    const stuck: AgentRuntime = {
      name: 'stuck',
      async run(_turn, emit) {
        await emit({ type: 'thought', content: 'working on it' });
        markStarted();
        await new Promise(() => undefined);
      },
    };
    const firstMailer = memoryMailer();
    const first = await createApp(config, { runtime: () => stuck, mailer: firstMailer });
    apps.push(first);
    const structure = await first.structures.create({ name: 'Acme', template: 'exec-team', ownerId: null });
    // The sender is an operator: only operators and owners start work by mail.
    await first.members.set(structure.id, (await first.users.create('alice@example.com')).user.id, 'operator');
    const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
    const raw = ((await transport.sendMail({
      from: 'alice@example.com',
      to: `exec-cfo.${structure.id}@org.example.com`,
      subject: 'Budget',
      text: 'Please draft the Q3 budget.',
      messageId: '<budget-1@example.com>',
    })) as { message: Buffer }).message;
    const accepted = await first.inbound.acceptEmail(raw);
    await started;
    expect(firstMailer.sent).toEqual([]);

    // The process dies: a new one starts on the same home without the first closing.
    const secondMailer = memoryMailer();
    const second = await createApp(config, { mailer: secondMailer });
    apps.push(second);
    expect(secondMailer.sent).toHaveLength(1);
    const reply = secondMailer.sent[0]!;
    expect(reply.to).toBe('alice@example.com');
    expect(reply.subject).toBe('Re: Budget');
    expect(reply.inReplyTo).toBe('<budget-1@example.com>');
    expect(reply.references).toContain('<budget-1@example.com>');
    expect(reply.text).toContain('interrupted by restart');
    expect(reply.text).toContain(accepted.runId);

    // A third start owes nothing any more.
    const thirdMailer = memoryMailer();
    apps.push(await createApp(config, { mailer: thirdMailer }));
    expect(thirdMailer.sent).toEqual([]);
  });
});
