/**
 * The typed client of the org API (API.md): one method per route, JSON in and out,
 * every failure an `OrgError`. Chat streams are `ChatStream`s that resume by themselves.
 * The connection settings are in `base.ts`, the calls in `calls/`, one file per part of
 * the API; this file puts them together.
 *
 * @example
 * const client = new OrgClient({ url: 'http://127.0.0.1:4780', token });
 * const { structures } = await client.listStructures();
 * const stream = await client.chat({ structure_id, role_id: 'exec-ceo', message: 'hello' });
 * for await (const { event } of stream) console.log(event.type);
 */
import { ClientBase } from './base.js';
import {
  auditCalls,
  chatCalls,
  fileCalls,
  instanceCalls,
  searchCalls,
  sharingCalls,
  skillCalls,
  structureCalls,
  webhookCalls,
  type AuditCalls,
  type ChatCalls,
  type FileCalls,
  type InstanceCalls,
  type SearchCalls,
  type SharingCalls,
  type SkillCalls,
  type StructureCalls,
  type WebhookCalls,
} from './calls/index.js';

export type { ClientOptions } from './base.js';

/** A client of one org server. */
// Its calls are declared by the interface below, from their objects' own types, and put
// on the prototype right after it: every member the interface names is there.
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class OrgClient extends ClientBase {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export interface OrgClient extends InstanceCalls, StructureCalls, SharingCalls, AuditCalls, WebhookCalls, SkillCalls, SearchCalls, FileCalls, ChatCalls {}

Object.assign(OrgClient.prototype, instanceCalls, structureCalls, sharingCalls, auditCalls, webhookCalls, skillCalls, searchCalls, fileCalls, chatCalls);
