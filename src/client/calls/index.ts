/**
 * The calls of `OrgClient`, one file per part of the API (API.md): each exports an
 * object of methods, run with the client as `this`, and its type. `client.ts` puts
 * them all on the client's prototype.
 */
export { auditCalls, type AuditCalls } from './audit.js';
export { chatCalls, type ChatCalls } from './chat.js';
export { fileCalls, type FileCalls } from './files.js';
export { instanceCalls, type InstanceCalls } from './instance.js';
export { searchCalls, type SearchCalls } from './search.js';
export { sharingCalls, type SharingCalls } from './sharing.js';
export { skillCalls, type SkillCalls } from './skills.js';
export { structureCalls, type StructureCalls } from './structures.js';
export { webhookCalls, type WebhookCalls } from './webhooks.js';
