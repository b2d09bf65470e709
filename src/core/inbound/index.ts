/**
 * Inbound channels (API.md §7): e-mail and messaging-channel messages that make a node
 * work. They are checked (HMAC signature, routing address), turned into a chat message
 * with an `origin`, and, for e-mail, answered by a threaded reply through the mailer.
 */
export * from './address.js';
export * from './email.js';
export * from './quotes.js';
export * from './service.js';
export * from './signature.js';
export * from './replay-guard.js';
export * from './sender-auth.js';
export * from './reply-journal.js';
