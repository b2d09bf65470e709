/**
 * The web UI: the static app that `vite build` writes to `dist/web/`, served at `/` by
 * `@fastify/static` with the security headers of `@fastify/helmet` (a strict
 * Content-Security-Policy without inline scripts or styles, nosniff, no referrer, no
 * framing). Both plugins live inside this plugin's encapsulation context, so the headers
 * and the `sendFile` decorator apply to these routes only, never to the API. Hashed files
 * under `/assets/` are cached for a year; `index.html` is revalidated on every load and
 * is also the answer to any other page a browser asks for (the SPA fallback). Every route
 * here is hidden from the OpenAPI document, which lists the API alone; `/api/*` and
 * `/mcp` paths without a route keep their problem+json 404.
 */
import { existsSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import helmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import { errorCodes, type FastifyPluginAsync, type FastifyReply, type FastifyRequest } from 'fastify';
import { packageRoot } from '../../core/util/package-root.js';
import { MAX_PATH_SEGMENT } from '../problem.js';

export interface WebRoutesOptions {
  /** Folder of the built app (default: `dist/web` of the package). */
  root?: string;
}

/** The package's `dist/web`, from `src/server/routes` (tests), `dist/server/routes` and the bundled CLI. */
export const DEFAULT_WEB_ROOT = join(packageRoot(import.meta.url), 'dist', 'web') + sep;

/** Content-Security-Policy directives of the UI: same origin only, no inline scripts or styles. */
export const WEB_CSP_DIRECTIVES = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  // blob: for previews of images on a node's artifact shelf (fetched with the bearer).
  'img-src': ["'self'", 'data:', 'blob:'],
  'font-src': ["'self'"],
  'connect-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
} as const;

/**
 * Helmet's configuration for the UI. No defaults are merged into the policy (helmet's
 * `upgrade-insecure-requests` would break plain-HTTP serving on a LAN address), and HSTS
 * is left to the TLS-terminating proxy that knows whether HTTPS is there to stay.
 */
const HELMET: FastifyHelmetOptions = {
  global: true,
  contentSecurityPolicy: {
    useDefaults: false,
    directives: Object.fromEntries(Object.entries(WEB_CSP_DIRECTIVES).map(([name, values]) => [name, [...values]])),
  },
  frameguard: { action: 'deny' },
  referrerPolicy: { policy: 'no-referrer' },
  crossOriginOpenerPolicy: { policy: 'same-origin' },
  strictTransportSecurity: false,
};

/** Vite names the files under `/assets/` by content hash: they never change. */
const ASSET_CACHE = { maxAge: '365d', immutable: true } as const;
const HIDDEN = { schema: { hide: true } } as const;

/** True for paths that belong to the API or MCP, whose misses stay problem+json 404s. */
function isServicePath(url: string): boolean {
  const path = url.split('?')[0] ?? '';
  return path === '/api' || path.startsWith('/api/') || path === '/mcp' || path.startsWith('/mcp/');
}

/** Serves the built web UI. */
export const webRoutes: FastifyPluginAsync<WebRoutesOptions> = async (server, options) => {
  const root = resolve(options.root ?? DEFAULT_WEB_ROOT);
  await server.register(helmet, HELMET);
  await server.register(fastifyStatic, {
    root: join(root, 'assets'),
    prefix: '/assets/',
    ...ASSET_CACHE,
    // A missing dist/web is reported at `/` (below), not as a warning at start.
    suppressWarning: true,
    // Hidden files are not part of a build: never serve one.
    dotfiles: 'deny',
    // RFC 9239: JavaScript is text/javascript (the mime table still says application/).
    setHeaders: (reply, path) => {
      if (path.endsWith('.js')) reply.header('content-type', 'text/javascript; charset=utf-8');
    },
  });

  /** The app's page, or a plain hint while the UI is not built (checked per request, so a build shows up without a restart). */
  const page = (reply: FastifyReply) => {
    if (!existsSync(join(root, 'index.html'))) {
      return reply
        .code(503)
        .header('cache-control', 'no-store')
        .type('text/plain; charset=utf-8')
        .send('org: the web UI is not built. Run `npm run build` (it writes dist/web/), then reload.\nThe API is served under /api/org.\n');
    }
    return reply.header('cache-control', 'no-cache').sendFile('index.html', root, { cacheControl: false });
  };

  server.get('/', HIDDEN, (_request, reply) => page(reply));
  server.get('/index.html', HIDDEN, (_request, reply) => page(reply));
  server.get('/favicon.svg', HIDDEN, (_request, reply) => reply.sendFile('favicon.svg', root, { maxAge: '1d' }));
  // The SPA fallback: a page the browser navigates to (a bookmark, a pasted link) gets the app.
  server.get('/*', HIDDEN, (request: FastifyRequest, reply) => {
    if (isServicePath(request.url)) {
      // The router backs off to this route when a path parameter is too long: answer as it would have (414).
      const path = request.url.split('?')[0] ?? '';
      if (path.split('/').some((segment) => segment.length > MAX_PATH_SEGMENT)) throw new errorCodes.FST_ERR_MAX_PARAM_LENGTH(path);
      return reply.callNotFound();
    }
    if (!String(request.headers.accept ?? '').includes('text/html')) return reply.callNotFound();
    return page(reply);
  });
};
