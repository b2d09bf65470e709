import { describe, expect, it } from 'vitest';
import { ACTION_RULES, ROLES, type Action, type Role, isRole, roleAtLeast } from './roles.js';

describe('roles', () => {
  it('orders viewer < operator < owner', () => {
    expect(ROLES).toEqual(['viewer', 'operator', 'owner']);
    const table: [Role, Role, boolean][] = [
      ['viewer', 'viewer', true],
      ['viewer', 'operator', false],
      ['viewer', 'owner', false],
      ['operator', 'viewer', true],
      ['operator', 'operator', true],
      ['operator', 'owner', false],
      ['owner', 'viewer', true],
      ['owner', 'operator', true],
      ['owner', 'owner', true],
    ];
    for (const [role, min, allowed] of table) expect(roleAtLeast(role, min), `${role} ≥ ${min}`).toBe(allowed);
  });

  it('isRole accepts the three roles only', () => {
    for (const role of ROLES) expect(isRole(role)).toBe(true);
    for (const value of ['admin', 'Owner', '', undefined, 1, null]) expect(isRole(value)).toBe(false);
  });

  it('is the matrix of API.md §3', () => {
    // action → [viewer, operator, owner, MCP node key]
    const matrix: Record<Action, [boolean, boolean, boolean, 'no' | 'structure' | 'own_node']> = {
      read: [true, true, true, 'structure'],
      read_history: [true, true, true, 'own_node'],
      chat: [false, true, true, 'own_node'],
      write_skills: [false, true, true, 'no'],
      manage_nodes: [false, true, true, 'no'],
      admin_structure: [false, false, true, 'no'],
    };
    expect(Object.keys(ACTION_RULES).sort()).toEqual(Object.keys(matrix).sort());
    for (const [action, [viewer, operator, owner, mcp]] of Object.entries(matrix) as [Action, (typeof matrix)[Action]][]) {
      const rule = ACTION_RULES[action];
      expect(roleAtLeast('viewer', rule.minRole), `viewer ${action}`).toBe(viewer);
      expect(roleAtLeast('operator', rule.minRole), `operator ${action}`).toBe(operator);
      expect(roleAtLeast('owner', rule.minRole), `owner ${action}`).toBe(owner);
      expect(rule.mcp, `mcp ${action}`).toBe(mcp);
    }
  });
});
