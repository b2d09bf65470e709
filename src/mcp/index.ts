/**
 * The MCP surface (API.md §7, §9): the org tools (`do`, `list_skills`, `list_peers`,
 * `search_skills`, `read_skill`), artifacts as resources, the Skills extension and `do`
 * as a task, over a backend; served over Streamable HTTP at `/mcp` in-process (backend:
 * the App; revisions 2025-11-25 with sessions and 2026-07-28 stateless) and over stdio
 * by `org mcp` (backend: the HTTP API through the org client). Imports app, core and
 * the client only; the HTTP server mounts the handler it is given.
 */
export * from './backend.js';
export * from './app-backend.js';
export * from './http.js';
export * from './http-endpoint.js';
export * from './outcome.js';
export * from './progress.js';
export * from './remote-backend.js';
export * from './resources.js';
export * from './server.js';
export * from './skills-source.js';
export * from './stdio.js';
export * from './tasks.js';
export * from './tools.js';
