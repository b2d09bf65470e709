/**
 * Builds the org MCP server of one request (2026-07-28) or one session or stdio
 * connection (2025 revisions): the tools, artifact resources, the Skills extension and
 * `do` as a task, all acting through one key's backend.
 */
import type { OrgToolBackend } from './backend.js';
import { registerArtifactResources } from './resources.js';
import { attachSkills } from './skills-source.js';
import { OrgMcpServer, installTasks } from './tasks.js';
import { registerOrgTools, type OrgToolsOptions } from './tools.js';

/** Options of {@link createOrgMcpServer}. */
export interface OrgMcpServerOptions extends OrgToolsOptions {
  /** Version reported to clients. */
  version: string;
}

const INSTRUCTIONS =
  'Tools of one node of an org workspace. `do` makes the node work on a request (a turn) and returns its summary and artifacts ' +
  '(as a task when the client supports tasks); `list_peers` shows the other nodes; `list_skills`, `search_skills` and `read_skill` ' +
  'read the skill library, whose complete skills are also served as Agent Skills through the Skills extension (skill://<name>/SKILL.md).';

/** A fresh MCP server acting through `backend`. */
export function createOrgMcpServer(backend: OrgToolBackend, options: OrgMcpServerOptions): OrgMcpServer {
  const server = new OrgMcpServer({ name: 'org', version: options.version }, { instructions: INSTRUCTIONS });
  registerOrgTools(server, backend, options);
  registerArtifactResources(server, backend);
  attachSkills(server, backend, (message) => options.log('error', `mcp: skills: ${message}`));
  installTasks(server, backend, options.era);
  return server;
}
