/**
 * Turns a core {@link MailMessage} into a nodemailer message, and opens nodemailer
 * transports on first use (the import included), shared by the SMTP and outbox transports.
 */
import type * as NodemailerModule from 'nodemailer';
import type { Transporter } from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer/index.js';
import type { MailMessage } from '../core/mail/index.js';

/** A nodemailer transport made by `create` on the first `get()`; `close()` before that is a no-op. */
export function lazyTransport(create: (nodemailer: (typeof NodemailerModule)['default']) => Transporter): { get(): Promise<Transporter>; close(): void } {
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

/** The nodemailer form of `message`, sent from `from` with CRLF text; absent members stay absent. */
export function toNodemailer(from: string, message: MailMessage): Mail.Options {
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
