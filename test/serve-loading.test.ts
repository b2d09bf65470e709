/**
 * What `org serve` loads on a filesystem home, from the bundled CLI that `bin/org.js`
 * runs: the packages it uses, ES modules (TypeBox, the markdown parser) and CommonJS
 * (fastify and its plugins, Ajv, pino, undici) alike, come inside the bundle, so Node
 * resolves no package file at all; the PostgreSQL driver is not loaded either. The child
 * records every module it resolves through a resolution hook preloaded with `--import`;
 * that the bundle's entry is in the record is the control. The HTTP client is not loaded
 * before something sends a request, nor the metrics (prom-client) without `--metrics`.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, ensureBuilt, startServe } from './helpers/child.js';

const REGISTER = fileURLToPath(new URL('./fixtures/module-log/register.mjs', import.meta.url));
const ADMIN = 'test-admin-token-0123456789abcdef';

describe('the modules org serve loads', () => {
  let dir: string;
  beforeAll(async () => {
    ensureBuilt();
    dir = await mkdtemp(join(tmpdir(), 'org-serve-loading-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('resolves no package file (fastify, Ajv, TypeBox, the markdown parser come in the bundle) and never loads the PostgreSQL driver', async () => {
    const log = join(dir, 'serve.log');
    const home = join(dir, 'home');
    const child = await startServe({
      home,
      args: ['--no-demo'],
      env: { NODE_OPTIONS: `--import ${REGISTER}`, ORG_TEST_MODULE_LOG: log, ORG_ADMIN_TOKEN: ADMIN, ORG_CONFIG_DIR: join(home, 'cfg') },
    });
    try {
      await child.ready;
      // Routes validate with TypeBox schemas and skills are parsed as markdown: both ran.
      const search = await fetch(`${child.url}/api/org/knowledge/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'write a weekly report', limit: 3 }),
      });
      expect(search.status).toBe(200);
      const invalid = await fetch(`${child.url}/api/org/knowledge/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 5 }),
      });
      expect(invalid.status).toBe(400);
    } finally {
      expect(await child.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    }
    const loaded = (await readFile(log, 'utf8')).split('\n').filter(Boolean);
    expect(loaded.some((url) => url.includes('/dist/bundle/main.js'))).toBe(true);
    expect(loaded.filter((url) => url.includes('/node_modules/'))).toEqual([]);
    expect(loaded.filter((url) => /\/node_modules\/(pg|pg-[a-z-]+)\//.test(url))).toEqual([]);
    // org's own modules come from the bundle, not from tsc's output beside it.
    expect(loaded.filter((url) => /\/dist\/(app|server|core|cli)\//.test(url))).toEqual([]);
    // The HTTP client (undici, the largest package) is bundled in a chunk of its own that
    // only an outgoing request loads, and this server made none.
    expect((await readdir(join(REPO_ROOT, 'dist', 'bundle'))).filter((name) => name.startsWith('undici-'))).toHaveLength(1);
    expect(loaded.filter((url) => url.includes('/dist/bundle/undici-'))).toEqual([]);
    // The metrics (prom-client with them) come in a chunk of their own, loaded only with --metrics.
    expect((await readdir(join(REPO_ROOT, 'dist', 'bundle'))).filter((name) => name.startsWith('metrics-'))).toHaveLength(1);
    expect(loaded.filter((url) => url.includes('/dist/bundle/metrics-'))).toEqual([]);
  });

  it('loads the metrics chunk with --metrics, and the bundled prom-client serves them', async () => {
    const log = join(dir, 'serve-metrics.log');
    const home = join(dir, 'home-metrics');
    const child = await startServe({
      home,
      args: ['--no-demo', '--metrics'],
      env: { NODE_OPTIONS: `--import ${REGISTER}`, ORG_TEST_MODULE_LOG: log, ORG_ADMIN_TOKEN: ADMIN, ORG_CONFIG_DIR: join(home, 'cfg') },
    });
    try {
      const scraped = await fetch(`${child.url}/metrics`);
      expect(scraped.status).toBe(200);
      const text = await scraped.text();
      expect(text).toContain('# TYPE org_http_request_duration_seconds histogram');
      expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    } finally {
      expect(await child.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    }
    const loaded = (await readFile(log, 'utf8')).split('\n').filter(Boolean);
    expect(loaded.filter((url) => url.includes('/dist/bundle/metrics-'))).toHaveLength(1);
  });
});
