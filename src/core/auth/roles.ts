/**
 * The role matrix of API.md §3, in one place. Routes name an action; this module
 * decides which member roles, and whether an MCP node key, may perform it.
 */

/** Member roles, lowest first. */
export const ROLES = ['viewer', 'operator', 'owner'] as const;
/** A member role in a structure. */
export type Role = (typeof ROLES)[number];

/** Every guarded action of the API. */
export type Action =
  | 'read' // list/read structures, skills, search, log
  | 'read_history' // history and artifacts of a node
  | 'chat' // message, sync, resume, cancel
  | 'write_skills' // POST, DELETE, restore skills
  | 'manage_nodes' // add, patch, delete, restore nodes
  | 'admin_structure'; // mint/revoke MCP keys, share, members

interface Rule {
  /** The lowest member role allowed. */
  minRole: Role;
  /** What an MCP node key may do: nothing, anything in its structure, or only its own node. */
  mcp: 'no' | 'structure' | 'own_node';
}

/** The matrix itself (API.md §3). */
export const ACTION_RULES: Record<Action, Rule> = {
  read: { minRole: 'viewer', mcp: 'structure' },
  read_history: { minRole: 'viewer', mcp: 'own_node' },
  chat: { minRole: 'operator', mcp: 'own_node' },
  write_skills: { minRole: 'operator', mcp: 'no' },
  manage_nodes: { minRole: 'operator', mcp: 'no' },
  admin_structure: { minRole: 'owner', mcp: 'no' },
};

/** True when `role` is `min` or higher. */
export function roleAtLeast(role: Role, min: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(min);
}

/** True when `value` names a member role. */
export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}
