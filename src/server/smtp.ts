/**
 * The optional inbound SMTP listener of `org serve --smtp-port` (smtp-server), so a mail
 * server can deliver to org directly. Messages go to the same inbound service as
 * `POST /api/org/inbound/email`. Instead of the webhook's HMAC, the client must
 * authenticate (AUTH PLAIN/LOGIN, any user name) with ORG_INBOUND_SECRET as password;
 * recipients that name no node are refused at RCPT TO (550).
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import type { App } from '../app.js';
import { sameSecret } from '../core/auth/index.js';
import { OrgError, isOrgError } from '../core/errors.js';
import { errorFields, type Log } from '../core/util/log.js';

/** What {@link startSmtpListener} hands back: the port it bound (useful with port 0) and how to stop it. */
export interface SmtpListener {
  /** The port it listens on. */
  port: number;
  close(): Promise<void>;
}

/** Options of {@link startSmtpListener}. */
export interface SmtpListenerOptions {
  host: string;
  port: number;
  /** Where connection errors are reported. */
  log: Log;
}

function smtpError(message: string, responseCode: number): Error {
  return Object.assign(new Error(message), { responseCode });
}

/** Starts the listener; needs ORG_INBOUND_SECRET (it is the SMTP password). */
export async function startSmtpListener(app: Pick<App, 'config' | 'inbound'>, options: SmtpListenerOptions): Promise<SmtpListener> {
  const secret = app.config.inboundSecret;
  if (!secret) throw new OrgError('invalid_request', '--smtp-port needs ORG_INBOUND_SECRET (the SMTP password)');
  const server = new SMTPServer({
    name: app.config.inboundDomain,
    banner: 'org inbound mail',
    logger: false,
    size: app.config.bodyLimit,
    authMethods: ['PLAIN', 'LOGIN'],
    // Plain-text AUTH: keep the listener on a trusted interface or put TLS in front of it.
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    onAuth(auth, _session, callback) {
      if (typeof auth.password === 'string' && sameSecret(auth.password, secret)) return callback(null, { user: auth.username ?? 'mail' });
      callback(smtpError('authentication failed', 535));
    },
    onRcptTo(address, _session, callback) {
      if (address.address && app.inbound.accepts(address.address)) return callback();
      callback(smtpError(`no node has the address ${address.address}`, 550));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', (error) => callback(error));
      stream.on('end', () => {
        if (stream.sizeExceeded) return callback(smtpError('message too large', 552));
        const recipients = session.envelope.rcptTo.flatMap((rcpt) => (rcpt.address ? [rcpt.address] : []));
        app.inbound.acceptEmail(Buffer.concat(chunks), { recipients }).then(
          (accepted) => callback(null, `queued as run ${accepted.runId}`),
          (error: unknown) => {
            const status = isOrgError(error) ? error.status : 500;
            const code = status === 404 ? 550 : status < 500 ? 554 : 451;
            callback(smtpError(isOrgError(error) ? error.message : 'internal error', code));
          },
        );
      });
    },
  });
  server.on('error', (error) => options.log('error', 'smtp listener error', errorFields(error)));
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.server.off('error', reject);
      resolve();
    });
  });
  const address = server.server.address() as AddressInfo;
  return {
    port: address.port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
