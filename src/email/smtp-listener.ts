/**
 * The optional inbound SMTP listener of `org serve --smtp-port` (smtp-server), so a mail
 * server can deliver to org directly. Messages go to the same inbound service as
 * `POST /api/org/inbound/email`. Instead of the webhook's HMAC, the client must
 * authenticate (AUTH PLAIN/LOGIN, any user name) with ORG_INBOUND_SECRET as password;
 * recipients that name no node are refused at RCPT TO (550). smtp-server is loaded when
 * the listener starts.
 */
import type { AddressInfo } from 'node:net';
import { sameSecret } from '../core/auth/index.js';
import { OrgError, isOrgError } from '../core/errors.js';
import type { InboundService } from '../core/inbound/index.js';
import { errorFields, type Log } from '../core/util/index.js';

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
  /** The SMTP password (ORG_INBOUND_SECRET); required, the listener refuses to start without it. */
  secret: string | undefined;
  /** The name the listener greets with (the inbound domain). */
  name: string;
  /** Largest message accepted, in bytes (552 beyond). */
  sizeLimit: number;
  /** Where accepted messages go: routing checks at RCPT TO, the message at DATA. */
  inbound: Pick<InboundService, 'accepts' | 'acceptEmail'>;
  /** Where connection errors are reported. */
  log: Log;
}

function smtpError(message: string, responseCode: number): Error {
  return Object.assign(new Error(message), { responseCode });
}

/** Starts the listener; resolves once it is bound. */
export async function startSmtpListener(options: SmtpListenerOptions): Promise<SmtpListener> {
  const { secret, inbound } = options;
  if (!secret) throw new OrgError('invalid_request', '--smtp-port needs ORG_INBOUND_SECRET (the SMTP password)');
  const { SMTPServer } = await import('smtp-server');
  const server = new SMTPServer({
    name: options.name,
    banner: 'org inbound mail',
    logger: false,
    size: options.sizeLimit,
    authMethods: ['PLAIN', 'LOGIN'],
    // Plain-text AUTH: keep the listener on a trusted interface or put TLS in front of it.
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    onAuth(auth, _session, callback) {
      if (typeof auth.password === 'string' && sameSecret(auth.password, secret)) return callback(null, { user: auth.username ?? 'mail' });
      callback(smtpError('authentication failed', 535));
    },
    onRcptTo(address, _session, callback) {
      if (address.address && inbound.accepts(address.address)) return callback();
      callback(smtpError(`no node has the address ${address.address}`, 550));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', (error) => callback(error));
      stream.on('end', () => {
        if (stream.sizeExceeded) return callback(smtpError('message too large', 552));
        const recipients = session.envelope.rcptTo.flatMap((rcpt) => (rcpt.address ? [rcpt.address] : []));
        inbound.acceptEmail(Buffer.concat(chunks), { recipients }).then(
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
