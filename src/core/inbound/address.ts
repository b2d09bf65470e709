/**
 * Routing addresses of inbound e-mail: `<role_id>.<structure_id>@<ORG_INBOUND_DOMAIN>`
 * names one node. Role ids contain no dot, so the local part splits at its first dot.
 */
import { isRoleId } from '../util/index.js';

/** The node an address names. */
export interface NodeAddress {
  roleId: string;
  structureId: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The address of a node, e.g. `exec-ceo.3f0c…@org.example.com`. */
export function nodeAddress(roleId: string, structureId: string, domain: string): string {
  return `${roleId}.${structureId}@${domain}`;
}

/**
 * Reads a routing address; undefined when `address` is not of the form
 * `<role_id>.<structure_id>@<domain>` (letter case ignored).
 */
export function parseNodeAddress(address: string, domain: string): NodeAddress | undefined {
  const trimmed = address.trim().replace(/^<|>$/g, '').toLowerCase();
  const at = trimmed.lastIndexOf('@');
  if (at <= 0 || trimmed.slice(at + 1) !== domain.toLowerCase()) return undefined;
  const local = trimmed.slice(0, at);
  const dot = local.indexOf('.');
  if (dot <= 0) return undefined;
  const roleId = local.slice(0, dot);
  const structureId = local.slice(dot + 1);
  if (!isRoleId(roleId) || !UUID.test(structureId)) return undefined;
  return { roleId, structureId };
}
