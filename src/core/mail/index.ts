/** Outgoing mail: the Mailer interface, the SMTP and outbox implementations. */
export * from './mailer.js';
