/**
 * Test instances: a real app on a fresh temp home, with a Fastify server ready for
 * `inject` or listening on a free loopback port.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { createApp, type App, type AppDeps } from '../../src/app.js';
import { resolveConfig, type OrgConfig } from '../../src/core/config.js';
import type { CreatedStructure } from '../../src/core/schemas/index.js';
import { createMcpHttpHandler, type McpHttpHandler, type McpHttpOptions } from '../../src/mcp/index.js';
import { buildServer } from '../../src/server/index.js';

/** The administrator token of test instances. */
export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

/** A test instance. */
export interface TestInstance {
  home: string;
  app: App;
  server: FastifyInstance;
  /** The MCP endpoint mounted at /mcp. */
  mcp: McpHttpHandler;
  /** Base URL when started with `listen: true`. */
  url: string;
  /** Authorization header for a token. */
  auth(token?: string): { authorization: string };
  /** Creates a user through the API and returns its token and id. */
  createUser(email: string): Promise<{ token: string; id: string }>;
  /** Creates a structure through the API as `token` and returns its detail. */
  createStructure(token: string, template?: string, name?: string): Promise<CreatedStructure>;
  close(): Promise<void>;
}

/** Options of a test instance. */
export interface TestInstanceOptions {
  listen?: boolean;
  config?: Partial<OrgConfig>;
  deps?: AppDeps;
  home?: string;
  /** Options of the MCP endpoint. */
  mcp?: Partial<McpHttpOptions>;
  /** Wait for the skill library to load before answering (default true). */
  waitForSkills?: boolean;
}

/**
 * Starts a test instance on a temp home with ORG_ADMIN_TOKEN set. It allows egress to
 * loopback (`--allow-egress loopback`), where tests run their containers, tool URLs and
 * webhook receivers; a test of the egress policy itself passes `config: { egressAllow: [] }`.
 */
export async function startInstance(options: TestInstanceOptions = {}): Promise<TestInstance> {
  const home = options.home ?? (await mkdtemp(join(tmpdir(), 'org-test-')));
  const config: OrgConfig = {
    ...resolveConfig({ home, port: 0, demo: false, allowEgress: ['loopback'] }, { ORG_ADMIN_TOKEN: ADMIN_TOKEN, ORG_CONFIG_DIR: join(home, 'config') }),
    ...options.config,
  };
  const app = await createApp(config, options.deps);
  // Tests start from a loaded library with its start-up index save done (that save comes
  // after ready), so that no test sees the state folder change under it.
  if (options.waitForSkills !== false) await app.skills.settle();
  // Composed as `org serve` does: the MCP endpoint is mounted at /mcp.
  const mcp = createMcpHttpHandler(app, { version: 'test', log: app.log, ...options.mcp });
  const server = await buildServer(app, { version: 'test', mcp });
  let url = '';
  if (options.listen) {
    await server.listen({ host: '127.0.0.1', port: 0 });
    const address = server.server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    app.setListeningUrl(url);
  }
  const auth = (token = ADMIN_TOKEN) => ({ authorization: `Bearer ${token}` });
  return {
    home,
    app,
    server,
    mcp,
    url,
    auth,
    async createUser(email) {
      const response = await server.inject({ method: 'POST', url: '/api/org/users', headers: auth(), payload: { email } });
      if (response.statusCode !== 201) throw new Error(`createUser: ${response.statusCode} ${response.body}`);
      const body = response.json<{ token: string; user: { id: string } }>();
      return { token: body.token, id: body.user.id };
    },
    async createStructure(token, template = 'exec-team', name = 'Test') {
      const response = await server.inject({ method: 'POST', url: '/api/org/structures', headers: auth(token), payload: { name, template } });
      if (response.statusCode !== 201) throw new Error(`createStructure: ${response.statusCode} ${response.body}`);
      return response.json();
    },
    async close() {
      // A test's instance is done with its clients: a keep-alive connection left open would hold
      // close() until its keep-alive timeout, so every connection is closed once closing has begun.
      const closed = server.close();
      server.server.closeAllConnections();
      await closed;
      await app.close();
      if (!options.home) await rm(home, { recursive: true, force: true });
    },
  };
}
