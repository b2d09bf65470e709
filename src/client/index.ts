/**
 * The typed HTTP + SSE client of the org API (undici, eventsource-parser). Imports core
 * types only; the CLI talks to every server through it.
 */
export * from './client.js';
export * from './http.js';
export * from './stream.js';
export type * from './types.js';
