/**
 * `org mcp --url URL --key KEY`: a stdio MCP server with the org tools, proxying the
 * HTTP API of an org server with a node key (for MCP clients that spawn a command).
 * stdout carries the protocol; messages for people go to stderr.
 */
import type { Readable, Writable } from 'node:stream';
import { invalid } from '../../core/errors.js';
import { createLineLog } from '../../core/util/log.js';
import { connectRemoteBackend, serveStdio } from '../../mcp/index.js';
import type { Output } from '../output.js';
import { VERSION } from '../version.js';

/** Flags of `org mcp`. */
export interface McpFlags {
  url?: string;
  key?: string;
}

/** Collaborators of {@link runMcp} (tests replace them). */
export interface McpDeps {
  env?: NodeJS.ProcessEnv;
  stdin?: Readable;
  stdout?: Writable;
}

/**
 * Checks the key against the server, then serves MCP on stdio until the client closes
 * stdin; resolves with the exit code. Throws OrgError for a missing flag, an
 * unreachable server or a key that is not a live node key.
 */
export async function runMcp(flags: McpFlags, output: Output, deps: McpDeps = {}): Promise<number> {
  const env = deps.env ?? process.env;
  const url = flags.url ?? env.ORG_URL;
  const key = flags.key ?? env.ORG_MCP_KEY;
  if (!url) throw invalid('--url (or ORG_URL) is required: the base URL of the org server, e.g. http://127.0.0.1:4780');
  if (!/^https?:\/\//.test(url)) throw invalid(`--url must be an http(s) URL, got "${url}"`);
  if (!key) throw invalid('--key (or ORG_MCP_KEY) is required: an MCP node key (org_mcp_…)');
  const backend = await connectRemoteBackend({ url, key });
  output.err(`org: mcp: serving node ${backend.identity.role_id} of structure ${backend.identity.structure_id} on stdio (MCP 2025-11-25 and 2026-07-28)`);
  await serveStdio(backend, {
    version: VERSION,
    // Records as lines on stderr: stdout belongs to the MCP client.
    log: createLineLog((line) => output.err(line.trimEnd())),
    ...(deps.stdin ? { stdin: deps.stdin } : {}),
    ...(deps.stdout ? { stdout: deps.stdout } : {}),
  });
  return 0;
}
