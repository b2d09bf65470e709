/** Outgoing mail as core sees it: the {@link Mailer} port. Its transports are in `src/email`. */
export * from './mailer.js';
