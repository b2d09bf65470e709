/**
 * MCP over stdio, for clients that spawn a command (`org mcp`): the org server on the
 * process's stdin/stdout, speaking whichever revision the client opens with (2025
 * `initialize` or 2026-07-28). Nothing else may write to stdout.
 */
import type { Readable, Writable } from 'node:stream';
import { serveStdio as serveSdkStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { errorFields } from '../core/util/log.js';
import type { OrgToolBackend } from './backend.js';
import { createOrgMcpServer, type OrgMcpServerOptions } from './server.js';

/** Options of {@link serveStdio}. */
export interface StdioOptions extends Omit<OrgMcpServerOptions, 'era'> {
  stdin?: Readable;
  stdout?: Writable;
}

/** Serves the org MCP surface over stdio; resolves when the client closes stdin. */
export async function serveStdio(backend: OrgToolBackend, options: StdioOptions): Promise<void> {
  const stdin = options.stdin ?? process.stdin;
  const transport = new StdioServerTransport(stdin, options.stdout ?? process.stdout);
  const closed = new Promise<void>((resolve) => {
    stdin.once('end', resolve);
    stdin.once('close', resolve);
  });
  const handle = serveSdkStdio(({ era }) => createOrgMcpServer(backend, { ...options, era }), {
    legacy: 'serve',
    transport,
    onerror: (error) => options.log('error', 'mcp: stdio transport failed', errorFields(error)),
  });
  await closed;
  await handle.close();
}
