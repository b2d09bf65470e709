/** Authentication and authorization: tokens, users, MCP keys, the role matrix, open connections. */
export * from './connections.js';
export * from './keys.js';
export * from './principal.js';
export * from './roles.js';
export * from './tokens.js';
export * from './users.js';
