/**
 * MCP over stdio, for clients that spawn a command (`org mcp`): one org MCP server on
 * the process's stdin/stdout. Nothing else may write to stdout.
 */
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { OrgToolBackend } from './backend.js';
import { createOrgMcpServer, type OrgMcpServerOptions } from './server.js';

/** Options of {@link serveStdio}. */
export interface StdioOptions extends OrgMcpServerOptions {
  stdin?: Readable;
  stdout?: Writable;
}

/** Serves the org tools over stdio; resolves when the client closes stdin. */
export async function serveStdio(backend: OrgToolBackend, options: StdioOptions): Promise<void> {
  const stdin = options.stdin ?? process.stdin;
  const server = createOrgMcpServer(backend, options);
  const transport = new StdioServerTransport(stdin, options.stdout ?? process.stdout);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    stdin.once('end', resolve);
    stdin.once('close', resolve);
  });
  await server.connect(transport);
  await closed;
  await server.close();
}
