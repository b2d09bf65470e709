/**
 * Completion webhooks: registrations per structure, signed deliveries from a durable
 * outbox with retries for about 24 hours, and the run events that feed them.
 */
export * from './run-events.js';
export * from './schedule.js';
export * from './sender.js';
export * from './service.js';
export * from './signature.js';
export * from './store.js';
