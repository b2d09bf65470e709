/**
 * Outgoing mail. One `Mailer` interface with two implementations: SMTP (when
 * `ORG_SMTP_URL` is set) and the outbox, which writes each message as a real RFC 5322
 * `.eml` file to `.org/outbox/`. Messages are built by nodemailer in both cases, loaded
 * with the first message (a server that sends no mail never loads the mail stack).
 */
import { basename, join } from 'node:path';
import type * as NodemailerModule from 'nodemailer';
import type { Transporter } from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer/index.js';
import { writeAtomic } from '../storage/index.js';
import { isoNow, silentLog, type Clock, type Log, systemClock } from '../util/index.js';

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

/** A nodemailer transport created on first use (the import included). */
function lazyTransport(create: (nodemailer: (typeof NodemailerModule)['default']) => Transporter): { get(): Promise<Transporter>; close(): void } {
  let transport: Promise<Transporter> | undefined;
  let created: Transporter | undefined;
  return {
    get() {
      transport ??= import('nodemailer').then((module) => {
        created = create(module.default);
        return created;
      });
      return transport;
    },
    close() {
      created?.close();
    },
  };
}

/**
 * Text with CRLF line ends, as RFC 5322 has them. nodemailer's quoted-printable encoder
 * only knows lines by CRLF: given bare LFs it wraps the whole body as one long line,
 * splitting tokens and commands that stood on lines of their own.
 */
function crlf(text: string): string {
  return text.replace(/\r?\n/g, '\r\n');
}

function toNodemailer(from: string, message: MailMessage): Mail.Options {
  return {
    from,
    to: message.to,
    subject: message.subject,
    text: crlf(message.text),
    ...(message.html ? { html: message.html } : {}),
    ...(message.replyTo ? { replyTo: message.replyTo } : {}),
    ...(message.inReplyTo ? { inReplyTo: message.inReplyTo } : {}),
    ...(message.references ? { references: message.references } : {}),
    ...(message.attachments ? { attachments: message.attachments } : {}),
  };
}

/**
 * A mailer that writes `.eml` files to `dir` (atomically, one file per message). Temp
 * files of writes a crash cut off are removed by the home's start-up sweep.
 * `log` gets an `info` record per message written.
 */
export function createOutboxMailer(options: { dir: string; from: string; clock?: Clock; log?: Log }): Mailer {
  const transport = lazyTransport((nodemailer) => nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }));
  const clock = options.clock ?? systemClock;
  return {
    async send(message) {
      const info = (await (await transport.get()).sendMail(toNodemailer(options.from, message))) as { messageId: string; message: Buffer };
      const stamp = isoNow(clock).replace(/[:.]/g, '-');
      const id = info.messageId.replace(/[<>]/g, '').replace(/[^A-Za-z0-9.-]/g, '_').slice(0, 80);
      const file = join(options.dir, `${stamp}--${id}.eml`);
      await writeAtomic(file, info.message);
      (options.log ?? silentLog)('info', 'mail written to the outbox', { file: basename(file) });
      return { messageId: info.messageId, file };
    },
    async close() {
      transport.close();
    },
  };
}

/**
 * A mailer that sends through the SMTP server of `url` (e.g. `smtp://user:pass@host:587`).
 * `log` gets an `info` record per message sent and an `error` record per refused one
 * (the caller gets the error too).
 */
export function createSmtpMailer(options: { url: string; from: string; log?: Log }): Mailer {
  const transport = lazyTransport((nodemailer) => nodemailer.createTransport(options.url));
  const log = options.log ?? silentLog;
  return {
    async send(message) {
      let info: { messageId: string };
      try {
        info = (await (await transport.get()).sendMail(toNodemailer(options.from, message))) as { messageId: string };
      } catch (error) {
        log('error', 'sending mail over SMTP failed', { error: error instanceof Error ? error.message : String(error) });
        throw error;
      }
      log('info', 'mail sent over SMTP', { message_id: info.messageId });
      return { messageId: info.messageId };
    },
    async close() {
      transport.close();
    },
  };
}
