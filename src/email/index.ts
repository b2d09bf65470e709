/**
 * The e-mail adapter layer: the transports behind core's `Mailer` port (SMTP through
 * nodemailer, the `.eml` outbox), the MIME reader behind core's `ReadEmail` port
 * (mailparser), and the inbound SMTP listener of `org serve --smtp-port` (smtp-server).
 * Core never imports these libraries; the composition root wires them. Each library is
 * loaded on first use, so a server that sends and receives no mail never loads it.
 */
export * from './outbox.js';
export * from './read.js';
export * from './smtp.js';
export * from './smtp-listener.js';
