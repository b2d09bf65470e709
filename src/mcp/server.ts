/** Builds the org MCP server: an `McpServer` with the org tools over a backend. */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { OrgToolBackend } from './backend.js';
import { registerOrgTools, type OrgToolsOptions } from './tools.js';

/** Options of {@link createOrgMcpServer}. */
export interface OrgMcpServerOptions extends OrgToolsOptions {
  /** Version reported to clients. */
  version: string;
}

/** A fresh MCP server (one per session or stdio process) acting through `backend`. */
export function createOrgMcpServer(backend: OrgToolBackend, options: OrgMcpServerOptions): McpServer {
  const server = new McpServer(
    { name: 'org', version: options.version },
    {
      capabilities: { tools: {} },
      instructions:
        'Tools of one node of an org workspace. `do` makes the node work on a request (a turn) and returns its summary and artifacts; ' +
        '`list_peers` shows the other nodes, `list_skills`, `search_skills` and `read_skill` the skill library.',
    },
  );
  registerOrgTools(server, backend, options);
  return server;
}
