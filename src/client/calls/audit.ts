/** Calls that read the audit logs: a structure's and the whole instance's. */
import { callOn, structurePath, type ClientBase } from '../base.js';
import type { RequestOptions } from '../http.js';
import type { AuditPage, AuditQuery } from '../types.js';

export const auditCalls = {
  /** A structure's audit log, newest first (owner); page on with `before: next_before`. */
  structureAudit(structureId: string, query: AuditQuery = {}, request?: RequestOptions): Promise<AuditPage> {
    return callOn(this, `${structurePath(structureId)}/audit`, { query: { ...query } }, request);
  },

  /** The instance's whole audit log, newest first (administrator). */
  instanceAudit(query: AuditQuery = {}, request?: RequestOptions): Promise<AuditPage> {
    return callOn(this, '/api/org/audit', { query: { ...query } }, request);
  },
} satisfies ThisType<ClientBase>;

/** The audit calls of `OrgClient`. */
export type AuditCalls = typeof auditCalls;
