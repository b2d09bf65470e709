/** Workspaces: structures, nodes, templates, members, invites and the workspace log. */
export * from './activity.js';
export * from './invites.js';
export * from './service.js';
export * from './templates.js';
export * from './types.js';
