/**
 * The contract of a mail transport (core's `Mailer` port), run against every
 * implementation: the SMTP transport against a real local SMTP server, the `.eml`
 * outbox against its folder, and the in-memory outbox of tests. Each message is read
 * back as the receiving side got it (raw RFC 5322, parsed by mailparser) and every test
 * waits on the delivery event itself, never on time.
 */
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { afterEach, describe, expect, it } from 'vitest';
import type { Mailer, MailMessage } from '../../src/core/mail/index.js';
import type { MailInbox } from './mail-inbox.js';

/** One transport under test and the receiving side it delivers to. */
export interface MailFixture {
  /** The transport, sending from {@link MAIL_FROM}. */
  mailer: Mailer;
  /** Where its deliveries arrive. */
  inbox: MailInbox;
  /** A transport of the same kind that cannot deliver (a refusing server, an unusable folder). */
  broken: Mailer;
  /** Stops the receiving side and removes what the fixture wrote. */
  cleanup(): Promise<void>;
}

/** The sender address every fixture's mailer is configured with. */
export const MAIL_FROM = 'org@mail.test';

const addressesOf = (value: AddressObject | AddressObject[] | undefined): string[] =>
  (Array.isArray(value) ? value : value ? [value] : []).flatMap((entry) => entry.value.map((one) => one.address ?? ''));

/** Registers the mail transport contract for one implementation. */
export function describeMailTransport(name: string, make: () => Promise<MailFixture>): void {
  describe(`mail transport contract: ${name}`, () => {
    const open: MailFixture[] = [];
    afterEach(async () => {
      for (const fixture of open.splice(0)) {
        await fixture.mailer.close();
        await fixture.broken.close();
        await fixture.cleanup();
      }
    });
    const fresh = async () => {
      const fixture = await make();
      open.push(fixture);
      return fixture;
    };
    const received = async (inbox: MailInbox): Promise<ParsedMail> => simpleParser(await inbox.next());

    it('delivers a real message: From, To, Subject and text as given, the Message-ID it reported', async () => {
      const { mailer, inbox } = await fresh();
      const sent = await mailer.send({ to: 'alice@example.com', subject: 'You are invited', text: 'Open the link to join.\n' });
      expect(sent.messageId).toMatch(/^<[^<>\s]+@[^<>\s]+>$/);
      const mail = await received(inbox);
      expect(addressesOf(mail.from)).toEqual([MAIL_FROM]);
      expect(addressesOf(mail.to)).toEqual(['alice@example.com']);
      expect(mail.subject).toBe('You are invited');
      expect(mail.text?.trim()).toBe('Open the link to join.');
      expect(mail.messageId).toBe(sent.messageId);
      expect(mail.date).toBeInstanceOf(Date);
    });

    it('keeps the thread: Reply-To, In-Reply-To and References in order', async () => {
      const { mailer, inbox } = await fresh();
      await mailer.send({
        to: 'bob@example.com',
        subject: 'Re: Cash report',
        text: 'Done.',
        replyTo: 'exec-cfo.3f0c9a4e-8b1d-4c2e-9f3a-5d6e7f8a9b0c@org.test',
        inReplyTo: '<in-2@mail.example.com>',
        references: ['<in-0@mail.example.com>', '<in-1@mail.example.com>', '<in-2@mail.example.com>'],
      });
      const mail = await received(inbox);
      expect(addressesOf(mail.replyTo)).toEqual(['exec-cfo.3f0c9a4e-8b1d-4c2e-9f3a-5d6e7f8a9b0c@org.test']);
      expect(mail.inReplyTo).toBe('<in-2@mail.example.com>');
      expect(mail.references).toEqual(['<in-0@mail.example.com>', '<in-1@mail.example.com>', '<in-2@mail.example.com>']);
    });

    it('carries attachments byte for byte, with their names and types', async () => {
      const { mailer, inbox } = await fresh();
      const binary = Buffer.from(Array.from({ length: 4096 }, (_, index) => (index * 37) % 256));
      await mailer.send({
        to: 'carol@example.com',
        subject: 'Report',
        text: 'Attached.',
        attachments: [
          { filename: 'report.md', content: Buffer.from('# Report\n\n- one\n'), contentType: 'text/markdown' },
          { filename: 'chart.bin', content: binary, contentType: 'application/octet-stream' },
        ],
      });
      const mail = await received(inbox);
      expect(mail.attachments.map((attachment) => [attachment.filename, attachment.contentType])).toEqual([
        ['report.md', 'text/markdown'],
        ['chart.bin', 'application/octet-stream'],
      ]);
      expect(mail.attachments[0]!.content.toString('utf8')).toBe('# Report\n\n- one\n');
      expect(mail.attachments[1]!.content.equals(binary)).toBe(true);
    });

    it('keeps non-ASCII text and an HTML alternative', async () => {
      const { mailer, inbox } = await fresh();
      await mailer.send({ to: 'dörte@example.com', subject: 'Café — résumé ✓', text: 'Grüße, 你好 ✓', html: '<p>Grüße, <b>你好</b> ✓</p>' });
      const mail = await received(inbox);
      expect(mail.subject).toBe('Café — résumé ✓');
      expect(mail.text?.trim()).toBe('Grüße, 你好 ✓');
      expect(mail.html).toContain('<b>你好</b>');
      expect(addressesOf(mail.to)).toEqual(['dörte@example.com']);
    });

    it('delivers messages sent at once each exactly once', async () => {
      const { mailer, inbox } = await fresh();
      const messages: MailMessage[] = Array.from({ length: 6 }, (_, index) => ({ to: `p${index}@example.com`, subject: `n${index}`, text: `message ${index}` }));
      const sent = await Promise.all(messages.map((message) => mailer.send(message)));
      expect(new Set(sent.map((one) => one.messageId)).size).toBe(6);
      const delivered = await Promise.all(messages.map(() => received(inbox)));
      expect(delivered.map((mail) => mail.messageId).sort()).toEqual(sent.map((one) => one.messageId).sort());
      expect(delivered.map((mail) => mail.subject).sort()).toEqual(messages.map((message) => message.subject).sort());
      expect(inbox.pending).toBe(0);
    });

    it('a transport that cannot deliver rejects send, and nothing of it arrives', async () => {
      const { mailer, inbox, broken } = await fresh();
      await expect(broken.send({ to: 'erin@example.com', subject: 'lost', text: 'never arrives' })).rejects.toThrow();
      // The next delivery is the next good message: the refused one never arrived.
      await mailer.send({ to: 'erin@example.com', subject: 'arrives', text: 'this one does' });
      expect((await received(inbox)).subject).toBe('arrives');
      expect(inbox.pending).toBe(0);
    });

    it('close() ends the transport and is harmless twice, also before any message', async () => {
      const { mailer, broken } = await fresh();
      await mailer.close();
      await mailer.close();
      await broken.close();
    });
  });
}
