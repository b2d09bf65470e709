/**
 * The web UI: the static app that `vite build` writes to `dist/web/`, served at `/`
 * with strict security headers (a Content-Security-Policy without inline scripts,
 * nosniff, no referrer, no framing). Hashed files under `/assets/` are cached for a
 * year; `index.html` is revalidated on every load. These routes are outside `/api/org`,
 * so they need no access rule and unknown API paths keep their problem+json 404.
 */
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';

/** Options of the web routes. */
export interface WebRoutesOptions {
  /** Folder of the built app (default: `dist/web` of the package). */
  root?: string;
}

/** The package's `dist/web`, from both `src/server/routes` (tests) and `dist/server/routes`. */
export const DEFAULT_WEB_ROOT = fileURLToPath(new URL('../../../dist/web/', import.meta.url));

/** Content-Security-Policy of the UI: same-origin only, no inline scripts or styles. */
export const WEB_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': WEB_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
};

/** Serves the built web UI. */
export const webRoutes: FastifyPluginAsync<WebRoutesOptions> = async (server, options) => {
  const root = resolve(options.root ?? DEFAULT_WEB_ROOT);

  const notBuilt = (reply: FastifyReply) =>
    reply
      .code(503)
      .headers(SECURITY_HEADERS)
      .header('cache-control', 'no-store')
      .type('text/plain; charset=utf-8')
      .send('org: the web UI is not built. Run `npm run build` (it writes dist/web/), then reload.\nThe API is served under /api/org.\n');

  /** Sends one file of the app, or the not-found problem when it does not exist. */
  const sendFile = async (reply: FastifyReply, relative: string, cache: string) => {
    if (!existsSync(join(root, 'index.html'))) return notBuilt(reply);
    const path = normalize(join(root, relative));
    if (!path.startsWith(root + sep)) return reply.callNotFound();
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) return reply.callNotFound();
    const body = await readFile(path);
    return reply
      .headers(SECURITY_HEADERS)
      .header('cache-control', cache)
      .type(TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream')
      .send(body);
  };

  const page = (_request: unknown, reply: FastifyReply) => sendFile(reply, 'index.html', 'no-cache');
  server.get('/', page);
  server.get('/index.html', page);
  server.get('/favicon.svg', (_request, reply) => sendFile(reply, 'favicon.svg', 'public, max-age=86400'));
  server.get<{ Params: { '*': string } }>('/assets/*', (request, reply) => {
    const name = request.params['*'];
    if (!name || name.includes('\0')) return reply.callNotFound();
    // Vite names these files by content hash: they never change.
    return sendFile(reply, join('assets', name), 'public, max-age=31536000, immutable');
  });
};
