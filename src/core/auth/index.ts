/** Authentication and authorization: tokens, users, MCP keys, the role matrix, open connections. */
export * from './connections.js';
export * from './delegation-access.js';
export * from './fs-key-store.js';
export * from './fs-user-store.js';
export * from './key-store.js';
export * from './keys.js';
export * from './memory-rate-counter.js';
export * from './principal.js';
export * from './rate-counter.js';
export * from './roles.js';
export * from './run-tokens.js';
export * from './tokens.js';
export * from './user-store.js';
export * from './users.js';
