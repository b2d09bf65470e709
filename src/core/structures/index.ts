/**
 * Structures and everything in them: the in-memory registry over a journaled store,
 * structures, nodes, members, invites, templates, node activity and the workspace log.
 */
export * from './activity.js';
export * from './changes.js';
export * from './fs-structure-store.js';
export * from './invites.js';
export * from './log.js';
export * from './members.js';
export * from './nodes.js';
export * from './registry.js';
export * from './structure-store.js';
export * from './structures.js';
export * from './templates.js';
export * from './types.js';
