/**
 * The one client of the org API: typed calls over `fetch` and chat streams over
 * eventsource-parser with one reconnect policy. It imports core types and the core error
 * class only, and nothing Node-only, so the CLI, the MCP stdio bridge and the web UI
 * (bundled by Vite) all use it.
 */
export * from './client.js';
export * from './http.js';
export * from './problem.js';
export * from './sse.js';
export * from './stream.js';
export type * from './types.js';
