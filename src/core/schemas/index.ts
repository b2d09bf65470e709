/**
 * Every record and event of the API (API.md), declared once as a TypeBox schema with
 * its static type beside it (`type Skill = Static<typeof SkillSchema>`). The server
 * validates and documents routes with the schemas; the domain, the client, the CLI, the
 * MCP tools and the web UI use the types; chat events arriving from agents are checked
 * against them. Change a record here and every layer follows. A record is documented
 * once, on its schema; the static type beside it carries no second comment.
 */
export * from './audit.js';
export * from './auth.js';
export * from './chat.js';
export * from './common.js';
export * from './delegation.js';
export * from './inbound.js';
export * from './problem.js';
export * from './skills.js';
export * from './skill-versions.js';
export * from './structures.js';
export * from './webhooks.js';
