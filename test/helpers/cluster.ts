/**
 * What the multi-instance suites share: starting one member of a cluster (`org serve` in a
 * fresh home on the shared database), a JSON call to one instance with a bearer token,
 * and the teardown of what a suite started (instances, helper services, its database,
 * its folders).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import type { TestDatabase } from '../support/database.js';
import { startServe, type ServeChild } from './child.js';

/** A JSON answer: its status, headers and parsed body (`{}` when empty). */
export interface JsonAnswer<T> {
  status: number;
  headers: IncomingHttpHeaders;
  body: T;
}

/** Sends `body` (if any) as JSON to `base` + `path` with the bearer `token` and parses the answer. */
export async function callJson<T = Record<string, unknown>>(base: string, method: string, path: string, token: string, body?: unknown): Promise<JsonAnswer<T>> {
  const response = await request(`${base}${path}`, {
    method: method as 'GET',
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await response.body.text();
  return { status: response.statusCode, headers: response.headers, body: (text ? JSON.parse(text) : {}) as T };
}

/** What a suite started, as its `afterAll` finds it (members left unset by a failed `beforeAll` are skipped). */
export interface ClusterResources {
  instances: ServeChild[];
  /** Agents, receivers and other servers the instances talked to. */
  services?: ({ close(): Promise<unknown> } | undefined)[];
  database?: TestDatabase | undefined;
  dirs: string[];
}

/** How to start one member of a cluster. */
export interface MemberOptions {
  /** Prefix of its home folder's name (names the suite in the temp folder). */
  prefix: string;
  /** The administrator token; none when the suite signs in otherwise. */
  admin?: string;
  /** More `org serve` arguments (after `--no-demo`). */
  args?: string[];
  /** More environment (over the store URL, admin token and config folder). */
  env?: Record<string, string>;
}

/**
 * Starts `org serve` in a fresh home on `database` (no demo workspace, its own config
 * folder) and records the child and its home in `resources` for {@link stopCluster}.
 */
export async function startMember(resources: Pick<ClusterResources, 'instances' | 'dirs'>, database: TestDatabase, options: MemberOptions): Promise<ServeChild> {
  const home = await mkdtemp(join(tmpdir(), options.prefix));
  resources.dirs.push(home);
  const child = await startServe({
    home,
    args: ['--no-demo', ...(options.args ?? [])],
    env: {
      ORG_STORE_URL: database.url,
      ORG_CONFIG_DIR: join(home, 'config'),
      ...(options.admin === undefined ? {} : { ORG_ADMIN_TOKEN: options.admin }),
      ...options.env,
    },
  });
  resources.instances.push(child);
  return child;
}

/** Stops the instances (SIGTERM), then the services, drops the database and removes the folders. */
export async function stopCluster({ instances, services = [], database, dirs }: ClusterResources): Promise<void> {
  await Promise.all(instances.map((instance) => instance.stop('SIGTERM')));
  for (const service of services) await service?.close();
  await database?.drop();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
}
