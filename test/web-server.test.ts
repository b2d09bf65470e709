/**
 * The web UI as `org serve` serves it (src/server/routes/web.ts, @fastify/static and
 * @fastify/helmet): the built app at `/` with its security headers, content types and
 * caching; the SPA fallback for other pages; unknown API paths keep their problem+json
 * 404 and get none of the UI's headers; the UI's routes stay out of the OpenAPI
 * document; a plain hint when dist/web is missing; the sign-in link that `org serve`
 * prints on its first start. Needs `npm run build` (dist/web).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runServe } from '../src/cli/commands/serve.js';
import { registerErrorHandling } from '../src/server/errors.js';
import { DEFAULT_WEB_ROOT, webRoutes } from '../src/server/routes/web.js';
import { startInstance, type TestInstance } from './helpers/instance.js';

const built = existsSync(join(DEFAULT_WEB_ROOT, 'index.html'));

describe('web UI routes', () => {
  let t: TestInstance;
  beforeAll(async () => {
    if (!built) throw new Error(`dist/web is missing (${DEFAULT_WEB_ROOT}): run \`npm run build\` before these tests`);
    t = await startInstance();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('serves index.html at / with a strict CSP and the security headers', async () => {
    const response = await t.server.inject({ method: 'GET', url: '/' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-cache');
    const csp = String(response.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.headers['referrer-policy']).toBe('no-referrer');
    expect(response.body).toContain('<div id="root"></div>');
    // No inline script: every <script> has a src, and there is no inline handler.
    for (const tag of response.body.match(/<script\b[^>]*>/g) ?? []) expect(tag).toMatch(/\ssrc="\/assets\//);
    expect(response.body).not.toMatch(/\son[a-z]+=/i);
    expect(response.body).not.toMatch(/https?:\/\//);
  });

  it('serves the hashed assets with their content types, cached for a year', async () => {
    const index = await readFile(join(DEFAULT_WEB_ROOT, 'index.html'), 'utf8');
    const js = /src="(\/assets\/[^"]+\.js)"/.exec(index)?.[1];
    const css = /href="(\/assets\/[^"]+\.css)"/.exec(index)?.[1];
    expect(js && css).toBeTruthy();
    const script = await t.server.inject({ method: 'GET', url: js! });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(script.headers['x-content-type-options']).toBe('nosniff');
    const style = await t.server.inject({ method: 'GET', url: css! });
    expect(style.headers['content-type']).toBe('text/css; charset=utf-8');
    const icon = await t.server.inject({ method: 'GET', url: '/favicon.svg' });
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['content-type']).toBe('image/svg+xml');
    const head = await t.server.inject({ method: 'HEAD', url: '/' });
    expect(head.statusCode).toBe(200);
    // Conditional GET of an asset: the validators @fastify/static sends make a 304.
    const again = await t.server.inject({ method: 'GET', url: js!, headers: { 'if-none-match': String(script.headers.etag) } });
    expect(again.statusCode).toBe(304);
  });

  it('ships no schema library to the browser: no chunk of the built UI holds TypeBox', async () => {
    const assets = join(DEFAULT_WEB_ROOT, 'assets');
    const chunks = (await readdir(assets)).filter((name) => name.endsWith('.js'));
    expect(chunks.length).toBeGreaterThan(1);
    for (const name of chunks) {
      const code = await readFile(join(assets, name), 'utf8');
      // TypeBox marks every schema with a '~kind' member; its value checker names it too.
      expect(code.includes('~kind'), name).toBe(false);
    }
  });

  it('answers a page the browser navigates to with the app (SPA fallback), not other requests', async () => {
    const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
    for (const url of ['/w/7d3c1a8e-2b4f-4c6d-9e0a-1b2c3d4e5f60/skills', '/some/bookmark?x=1']) {
      const response = await t.server.inject({ method: 'GET', url, headers: html });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['content-type'], url).toBe('text/html; charset=utf-8');
      expect(String(response.headers['content-security-policy']), url).toContain("script-src 'self'");
      expect(response.body, url).toContain('<div id="root"></div>');
    }
    // Not a page load (no text/html accepted), the API, and MCP: the not-found problem.
    for (const [url, headers] of [['/some/bookmark', {}], ['/api/org/nope', html], ['/api', html], ['/mcp/nope', html]] as const) {
      const response = await t.server.inject({ method: 'GET', url, headers });
      expect(response.statusCode, url).toBe(404);
      expect(response.headers['content-type'], url).toMatch(/^application\/problem\+json/);
    }
  });

  it('keeps the UI routes out of the OpenAPI document and the UI headers off the API', async () => {
    const doc = (await t.server.inject({ method: 'GET', url: '/api/org/openapi.json' })).json<{ paths: Record<string, unknown> }>();
    const paths = Object.keys(doc.paths);
    expect(paths.length).toBeGreaterThan(20);
    expect(paths.filter((path) => !path.startsWith('/api/org/') && path !== '/mcp')).toEqual([]);
    const health = await t.server.inject({ method: 'GET', url: '/api/org/health' });
    expect(health.statusCode).toBe(200);
    expect(health.headers['content-security-policy']).toBeUndefined();
    expect(health.headers['x-frame-options']).toBeUndefined();
  });

  it('answers unknown assets and path tricks with the not-found problem', async () => {
    for (const url of ['/assets/nope.js', '/assets/%2e%2e/%2e%2e/%2e%2e/package.json', '/assets/..%2f..%2f..%2fpackage.json', '/assets/..%5c..%5cpackage.json', '/assets/']) {
      const response = await t.server.inject({ method: 'GET', url });
      // 404, or 403 where the path climbs out of the folder: never the file, never a path.
      expect([403, 404], url).toContain(response.statusCode);
      expect(response.headers['content-type'], url).toMatch(/^application\/problem\+json/);
      expect(response.body, url).not.toContain('"devDependencies"');
      expect(response.body, url).not.toContain(DEFAULT_WEB_ROOT);
    }
  });

  it('keeps the problem+json 404 for unknown API paths, without the UI', async () => {
    for (const url of ['/api/org/nope', '/api/nope', '/api/org/structures/x/y/z']) {
      const response = await t.server.inject({ method: 'GET', url, headers: t.auth() });
      expect(response.statusCode, url).toBe(404);
      expect(response.headers['content-type'], url).toMatch(/^application\/problem\+json/);
      expect(response.json()).toMatchObject({ status: 404, code: 'not_found' });
    }
  });
});

describe('web UI not built', () => {
  it('answers / with a short plain message to run npm run build; assets are simply not found', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'org-web-'));
    const server = Fastify();
    registerErrorHandling(server);
    await server.register(webRoutes, { root: empty });
    try {
      const response = await server.inject({ method: 'GET', url: '/' });
      expect(response.statusCode).toBe(503);
      expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(response.body).toContain('npm run build');
      expect(response.headers['content-security-policy']).toContain("default-src 'self'");
      const asset = await server.inject({ method: 'GET', url: '/assets/index.js' });
      expect(asset.statusCode).toBe(404);
      expect(asset.headers['content-type']).toMatch(/^application\/problem\+json/);
    } finally {
      await server.close();
      await rm(empty, { recursive: true, force: true });
    }
  });
});

describe('org serve', () => {
  it('prints the web UI address and, on first start, a #token= sign-in link', async () => {
    const home = await mkdtemp(join(tmpdir(), 'org-serve-web-'));
    const lines: string[] = [];
    const running = await runServe(
      { home, port: 0, host: '127.0.0.1', demo: false },
      { out: (line) => lines.push(line), err: () => undefined },
      { ORG_CONFIG_DIR: join(home, 'config'), ORG_LOG_LEVEL: 'silent' },
    );
    try {
      const url = running.url;
      expect(lines[0]).toBe(`org: listening on ${url}`);
      expect(lines).toContain(`org: web UI at ${url}/`);
      const link = lines.find((line) => line.startsWith('org: sign in to the web UI: '));
      expect(link).toMatch(new RegExp(`^org: sign in to the web UI: ${url.replace(/[.]/g, '\\.')}/#token=org_u_[A-Za-z0-9]{32,}$`));
      const page = await fetch(`${url}/`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    } finally {
      await running.stop();
      await rm(home, { recursive: true, force: true });
    }
  });
});
