/**
 * The in-memory mail transport of tests: each message is built as a real RFC 5322
 * message (nodemailer's stream transport, as the outbox does) and kept in memory with
 * what the service asked to send, so a test reads an invite token without opening
 * files and awaits a delivery instead of polling a folder. The mail transport contract
 * suite runs against it too, so it behaves like the real transports.
 */
import nodemailer from 'nodemailer';
import type { Mailer, MailMessage, SentMail } from '../../src/core/mail/index.js';
import { toNodemailer } from '../../src/email/compose.js';
import { MailInbox } from './mail-inbox.js';

/** A mailer that delivers into memory. */
export interface MemoryOutbox extends Mailer {
  /** What the service asked to send, in order (refused messages excluded). */
  sent: MailMessage[];
  /** The delivered messages as raw bytes, awaitable. */
  inbox: MailInbox;
  /** When set, every `send` rejects with this error and delivers nothing (an unreachable server). */
  failure: Error | undefined;
}

/** A fresh in-memory outbox sending from `from`. */
export function createMemoryOutbox(from = 'org@localhost'): MemoryOutbox {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  const outbox: MemoryOutbox = {
    sent: [],
    inbox: new MailInbox(),
    failure: undefined,
    async send(message): Promise<SentMail> {
      if (outbox.failure) throw outbox.failure;
      const info = (await transport.sendMail(toNodemailer(from, message))) as { messageId: string; message: Buffer };
      outbox.sent.push(message);
      outbox.inbox.deliver(info.message);
      return { messageId: info.messageId };
    },
    async close() {
      transport.close();
    },
  };
  return outbox;
}
