// Bundles the compiled CLI (dist/cli/main.js, tsc's output) into dist/bundle/, which
// bin/org.js runs. Node 20 loads ES modules one file at a time (resolve, read, compile,
// link), and `org serve` imported about 1,100 of them before it could listen: TypeBox
// alone is 683 files. The bundle holds org's own modules and the ES-module packages listed
// below, split into chunks along the CLI's lazy imports so each command still loads only
// what it uses. Every other package stays external and is loaded by Node as usual (the
// CommonJS ones cannot be inlined into an ES module without changing how they load).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const root = join(import.meta.dirname, '..');

/** ES-module packages inlined: many small files each, plain code (no files read beside them, no native parts). */
const INLINED = /^(typebox|unified|remark(-[a-z]+)?|micromark[a-z-]*|mdast-util-[a-z-]+|unist-util-[a-z-]+|vfile[a-z-]*|trough|bail|devlop|zwitch|longest-streak|is-plain-obj|character-entities[a-z-]*|decode-named-character-reference|ccount)(\/|$)/;

const outdir = join(root, 'dist', 'bundle');
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: [join(root, 'dist', 'cli', 'main.js')],
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
  plugins: [
    {
      name: 'external-packages',
      setup(builder) {
        // Bare specifiers (packages); relative paths and a package's own `#imports` resolve as usual.
        builder.onResolve({ filter: /^[^./#]/ }, (args) => (INLINED.test(args.path) ? undefined : { path: args.path, external: true }));
      },
    },
  ],
});
