/**
 * The mail transport contract (core's `Mailer` port) on each implementation: the SMTP
 * transport against a real smtp-server listening on a free port (with AUTH, so a wrong
 * password is a real refusal), the `.eml` outbox watched with chokidar, and the
 * in-memory outbox that other tests use in place of a transport.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { watch } from 'chokidar';
import { SMTPServer } from 'smtp-server';
import { createOutboxMailer, createSmtpMailer } from '../src/email/index.js';
import { MailInbox } from './support/mail-inbox.js';
import { describeMailTransport, MAIL_FROM } from './support/mail-transport-contract.js';
import { createMemoryOutbox } from './support/memory-outbox.js';

describeMailTransport('SMTP (nodemailer to a local smtp-server)', async () => {
  const inbox = new MailInbox();
  const server = new SMTPServer({
    logger: false,
    authMethods: ['PLAIN', 'LOGIN'],
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    onAuth(auth, _session, callback) {
      if (auth.username === 'org' && auth.password === 'mail-secret') return callback(null, { user: 'org' });
      callback(Object.assign(new Error('authentication failed'), { responseCode: 535 }));
    },
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        // Acknowledge first, then deliver: what a real MTA hands on is what it accepted.
        callback(null);
        inbox.deliver(Buffer.concat(chunks));
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    mailer: createSmtpMailer({ url: `smtp://org:mail-secret@127.0.0.1:${port}`, from: MAIL_FROM }),
    broken: createSmtpMailer({ url: `smtp://org:wrong-secret@127.0.0.1:${port}`, from: MAIL_FROM }),
    inbox,
    cleanup: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
});

describeMailTransport('outbox (.eml files)', async () => {
  const root = await mkdtemp(join(tmpdir(), 'org-outbox-'));
  const dir = join(root, 'outbox');
  await mkdir(dir);
  const inbox = new MailInbox();
  const watcher = watch(dir, { ignoreInitial: true });
  // A file appears under its final name only once whole (temp file, fsync, rename).
  watcher.on('add', (file) => {
    if (file.endsWith('.eml')) void readFile(file).then((raw) => inbox.deliver(raw));
  });
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  // A file where the broken outbox's folder should be: every write fails.
  await writeFile(join(root, 'not-a-folder'), 'x');
  return {
    mailer: createOutboxMailer({ dir, from: MAIL_FROM }),
    broken: createOutboxMailer({ dir: join(root, 'not-a-folder'), from: MAIL_FROM }),
    inbox,
    async cleanup() {
      await watcher.close();
      await rm(root, { recursive: true, force: true });
    },
  };
});

describeMailTransport('in-memory outbox (tests)', async () => {
  const mailer = createMemoryOutbox(MAIL_FROM);
  const broken = createMemoryOutbox(MAIL_FROM);
  broken.failure = new Error('connect ECONNREFUSED 127.0.0.1:25');
  return { mailer, broken, inbox: mailer.inbox, cleanup: async () => undefined };
});
