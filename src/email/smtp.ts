/** The SMTP transport: messages go to the SMTP server of `ORG_SMTP_URL` through nodemailer. */
import type { Mailer } from '../core/mail/index.js';
import { errorFields, silentLog, type Log } from '../core/util/index.js';
import { lazyTransport, toNodemailer } from './compose.js';

/** Options of {@link createSmtpMailer}. */
export interface SmtpMailerOptions {
  /** The server, e.g. `smtp://user:pass@host:587` (nodemailer's URL form). */
  url: string;
  /** The `From` address of every message. */
  from: string;
  /** Gets an `info` record per message sent and an `error` record per refused one. */
  log?: Log;
}

/**
 * A mailer that sends through an SMTP server; `send` resolves when the server accepted
 * the message and rejects (after logging) when it refused it or could not be reached.
 */
export function createSmtpMailer(options: SmtpMailerOptions): Mailer {
  const transport = lazyTransport((nodemailer) => nodemailer.createTransport(options.url));
  const log = options.log ?? silentLog;
  return {
    async send(message) {
      let info: { messageId: string };
      try {
        info = (await (await transport.get()).sendMail(toNodemailer(options.from, message))) as { messageId: string };
      } catch (error) {
        log('error', 'sending mail over SMTP failed', errorFields(error));
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
