/**
 * The MCP surface (API.md §7): the org tools (`do`, `list_skills`, `list_peers`,
 * `search_skills`, `read_skill`) over a backend, served over Streamable HTTP at `/mcp`
 * in-process (backend: the App) and over stdio by `org mcp` (backend: the HTTP API).
 * Imports app and core only; the HTTP server mounts the handler it is given.
 */
export * from './backend.js';
export * from './app-backend.js';
export * from './http.js';
export * from './progress.js';
export * from './remote-backend.js';
export * from './server.js';
export * from './stdio.js';
export * from './tools.js';
