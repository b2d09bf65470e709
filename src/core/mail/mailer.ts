/**
 * Outgoing mail. One `Mailer` interface with two implementations: SMTP (when
 * `ORG_SMTP_URL` is set) and the outbox, which writes each message as a real RFC 5322
 * `.eml` file to `.org/outbox/`. Messages are built by nodemailer in both cases.
 */
import { readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer/index.js';
import { writeAtomic } from '../storage/index.js';
import { isoNow, type Clock, systemClock } from '../util/index.js';

/** A message to send. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** Where replies to this message should go (e.g. the address of the node that answered). */
  replyTo?: string;
  inReplyTo?: string;
  references?: string[];
  attachments?: { filename: string; content: Buffer; contentType?: string }[];
}

/** What a mailer reports about a sent message. */
export interface SentMail {
  messageId: string;
  /** The `.eml` file written, for the outbox mailer. */
  file?: string;
}

/** Sends mail. */
export interface Mailer {
  send(message: MailMessage): Promise<SentMail>;
  close(): Promise<void>;
}

function toNodemailer(from: string, message: MailMessage): Mail.Options {
  return {
    from,
    to: message.to,
    subject: message.subject,
    text: message.text,
    ...(message.html ? { html: message.html } : {}),
    ...(message.replyTo ? { replyTo: message.replyTo } : {}),
    ...(message.inReplyTo ? { inReplyTo: message.inReplyTo } : {}),
    ...(message.references ? { references: message.references } : {}),
    ...(message.attachments ? { attachments: message.attachments } : {}),
  };
}

/** Removes the temp files of `.eml` writes that a crash cut off before their rename. */
export async function cleanOutbox(dir: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) if (/\.eml\.\d+$/.test(name)) await unlink(join(dir, name)).catch(() => undefined);
}

/** A mailer that writes `.eml` files to `dir` (atomically, one file per message). */
export function createOutboxMailer(options: { dir: string; from: string; clock?: Clock }): Mailer {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  const clock = options.clock ?? systemClock;
  return {
    async send(message) {
      const info = (await transport.sendMail(toNodemailer(options.from, message))) as { messageId: string; message: Buffer };
      const stamp = isoNow(clock).replace(/[:.]/g, '-');
      const id = info.messageId.replace(/[<>]/g, '').replace(/[^A-Za-z0-9.-]/g, '_').slice(0, 80);
      const file = join(options.dir, `${stamp}--${id}.eml`);
      await writeAtomic(file, info.message);
      return { messageId: info.messageId, file };
    },
    async close() {
      transport.close();
    },
  };
}

/** A mailer that sends through the SMTP server of `url` (e.g. `smtp://user:pass@host:587`). */
export function createSmtpMailer(options: { url: string; from: string }): Mailer {
  const transport = nodemailer.createTransport(options.url);
  return {
    async send(message) {
      const info = (await transport.sendMail(toNodemailer(options.from, message))) as { messageId: string };
      return { messageId: info.messageId };
    },
    async close() {
      transport.close();
    },
  };
}
