/**
 * The outbox transport, used when no SMTP server is configured: each message is built
 * as a real RFC 5322 message by nodemailer and written atomically as one `.eml` file to
 * `.org/outbox/`, where an operator (or a test) can open it.
 */
import { basename, join } from 'node:path';
import type { Mailer } from '../core/mail/index.js';
import { writeAtomic } from '../core/storage/index.js';
import { isoNow, silentLog, type Clock, type Log, systemClock } from '../core/util/index.js';
import { lazyTransport, toNodemailer } from './compose.js';

/** Options of {@link createOutboxMailer}. */
export interface OutboxMailerOptions {
  /** The outbox folder (`<home>/.org/outbox`); it must exist. */
  dir: string;
  /** The `From` address of every message. */
  from: string;
  /** Stamps the file names, so a listing sorts in sending order. */
  clock?: Clock;
  /** Gets an `info` record per message written. */
  log?: Log;
}

/**
 * A mailer that writes `.eml` files to `dir` (write a temp file, fsync, rename): a file
 * that is there is whole. Temp files of writes a crash cut off are removed by the home's
 * start-up sweep.
 */
export function createOutboxMailer(options: OutboxMailerOptions): Mailer {
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
