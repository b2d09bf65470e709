/**
 * Vite build of the web UI: `vite build --config web/vite.config.ts` writes the static
 * app to `dist/web/`, which `org serve` serves at `/` (src/server/routes/web.ts).
 * No CDN, no inline scripts (the server's Content-Security-Policy forbids them).
 */
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = decodeURIComponent(new URL('.', import.meta.url).pathname);

export default defineConfig({
  root,
  base: '/',
  plugins: [react()],
  publicDir: 'public',
  build: {
    outDir: '../dist/web',
    emptyOutDir: true,
    // Everything as files: a data: URI would need a looser Content-Security-Policy.
    assetsInlineLimit: 0,
    sourcemap: false,
    target: 'es2022',
  },
  server: {
    // `npx vite --config web/vite.config.ts` for UI work against `org serve` on 4780.
    proxy: { '/api': 'http://127.0.0.1:4780' },
  },
});
